import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { decodeRecord, type TypedTopic } from '@memstream/bus';
import { MAX_JSON_DEPTH, MAX_RECORD_DEPTH, TOPICS } from '@memstream/schemas';
import { renderTopicSchemas } from '../scripts/generate-schemas.js';

// A direct producer reads schemas/ to know what the consumers take. Each record below is judged
// twice, by the consumer's decoder and by a JSON Schema validator reading the published schema,
// and the two must agree: a schema that accepted what the decoder dead-letters would promise
// storage it does not give.

const validator = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
const schemas = renderTopicSchemas();

/** A public input topic: its name, and its consumer's decoder of a record's text. */
interface Topic {
  readonly name: string;
  decode(text: string): unknown;
}

function consumerOf<E>(topic: TypedTopic<E>): Topic {
  return {
    name: topic.name,
    decode: (text) =>
      decodeRecord(topic, {
        topic: topic.name,
        partition: 0,
        offset: '0',
        key: null,
        value: Buffer.from(text),
        headers: {},
      }),
  };
}

const compiled = new Map<string, ReturnType<typeof validator.compile>>();
function publishedSchemaOf(topic: Topic) {
  const text = schemas.get(`${topic.name}.schema.json`);
  assert.ok(text, `no schema written for ${topic.name}`);
  if (!compiled.has(topic.name)) compiled.set(topic.name, validator.compile(JSON.parse(text)));
  return compiled.get(topic.name)!;
}

const AT = '2026-11-27T10:00:00Z';

/** A field added where the sample's schema leaves values open. */
const SLOT = '"slot":0';

/** One valid event per public input topic, as JSON text with SLOT where a field can be put. */
const SAMPLES: Array<[Topic, string]> = [
  [
    consumerOf(TOPICS.groupChatInput),
    `{"id":"ev-1","type":"group_chat.message.received","occurred_at":"${AT}","data":{${SLOT},"group_id":"team","message_id":"m1","create_time":"${AT}","sender":"ada","content":"hello"}}`,
  ],
  [
    consumerOf(TOPICS.arkMessages),
    `{"id":"ev-2","type":"ark.messages.received","occurred_at":"${AT}","data":{"session_id":"s1","messages":[{${SLOT},"role":"user","content":"hi"}]}}`,
  ],
  [
    consumerOf(TOPICS.conversationInput),
    `{"id":"ev-3","type":"conversation.deleted","occurred_at":"${AT}",${SLOT},"data":{"conversation_id":"c1","group_id":"c1"}}`,
  ],
];

/** The sample's text with `field` (raw JSON) in its slot, or without the slot. */
function withField(sample: string, field?: string): string {
  assert.ok(sample.includes(SLOT));
  return field ? sample.replace(SLOT, field) : sample.replace(`${SLOT},`, '');
}

function judged(topic: Topic, text: string): { decoder: boolean; schema: boolean } {
  let decoder = true;
  try {
    topic.decode(text);
  } catch {
    decoder = false;
  }
  return { decoder, schema: publishedSchemaOf(topic)(JSON.parse(text)) === true };
}

test('the published schema of each public input topic takes what its consumer takes', () => {
  const kept = [
    '"note":{"constructor":"Ada","n":1.5e300,"m":-1.7976931348623157e308,"deep":[[["ok",null,true]]]}',
    '"tags":["a","b\\u0001"]',
  ];
  for (const [topic, sample] of SAMPLES)
    for (const field of ['', ...kept]) {
      const text = withField(sample, field);
      assert.deepEqual(judged(topic, text), { decoder: true, schema: true }, `${topic.name}: ${text}`);
    }
});

test('the published schema of each public input topic refuses what its consumer dead-letters for the value rules', () => {
  const refused = [
    '"note":{"__proto__":{"admin":true}}',
    '"note":[{"a":{"__proto__":1}}]',
    '"note":{"n":1e400}',
    '"note":[-1e999]',
    '"note":"nul\\u0000here"',
    '"note":{"key\\u0000":1}',
  ];
  for (const [topic, sample] of SAMPLES)
    for (const field of refused) {
      const text = withField(sample, field);
      assert.deepEqual(judged(topic, text), { decoder: false, schema: false }, `${topic.name}: ${text}`);
    }
  // declared text too: the message's own content
  const [groupChat, message] = SAMPLES[0]!;
  const nulContent = withField(message).replace('"content":"hello"', '"content":"hel\\u0000lo"');
  assert.deepEqual(judged(groupChat, nulContent), { decoder: false, schema: false });
});

test('a record nests at most MAX_RECORD_DEPTH levels, more than any body the HTTP API takes, and deeper is refused with the reason', () => {
  assert.ok(MAX_RECORD_DEPTH >= MAX_JSON_DEPTH + 10, 'room for the envelope around the deepest body');
  const [topic, sample] = SAMPLES[0]!;
  const decode = topic.decode;
  // the slot's value starts two levels down (the envelope, its data): n - 2 arrays make n levels
  const nested = (n: number) => withField(sample, `"deep":${'['.repeat(n - 2)}1${']'.repeat(n - 2)}`);
  assert.doesNotThrow(() => decode(nested(MAX_RECORD_DEPTH)));
  assert.throws(() => decode(nested(MAX_RECORD_DEPTH + 1)), {
    message: `event on ${topic.name} would not be kept as written: the record nests deeper than ${MAX_RECORD_DEPTH} levels`,
  });
  // far past what JSON.stringify and PostgreSQL's jsonb parser can take: refused the same way
  assert.throws(() => decode(nested(20_000)), { message: /nests deeper than/ });
});
