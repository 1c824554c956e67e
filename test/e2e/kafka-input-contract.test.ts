import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { DLQ_HEADERS } from '@memstream/bus';
import { RedisFanout } from '@memstream/fanout';
import { createLogger } from '@memstream/logging';
import { TOPICS, allTopics } from '@memstream/schemas';
import { PgStore, findRequestOutcome, listMessages, migrate } from '@memstream/store';
import { startConverter } from '@memstream/converter';
import { freshDatabase, infra, uniqueName, waitFor } from '../helpers/infra.js';
import { testKafkaBus } from '../helpers/kafka-bus.js';
import { produceRawWithLibrdkafka } from '../helpers/foreign-producers.js';

/** A converter on a fresh database and topics of its own, and a producer that is not our gateway. */
async function directProducer(t: TestContext, options: { groupId?: string } = {}) {
  const log = createLogger({ service: 'test', level: 'silent' });
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 4,
    statementTimeoutMs: 10_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  const { bus, prefix } = testKafkaBus(t, 'contract', log);
  await bus.ensureTopics(allTopics());
  const fanout = new RedisFanout(infra().redisUrl, log);
  t.after(() => fanout.close());
  const subs = await startConverter({
    bus,
    store,
    fanout,
    log,
    groupId: options.groupId ?? uniqueName('converter'),
    retry: { maxAttempts: 2, initialDelayMs: 10, maxDelayMs: 50 },
    partitionsConcurrently: 2,
    maxBatchSize: 100,
    metaCacheMs: 10_000,
    rules: { maxMessages: 50, maxTokens: 8192, silenceMs: 3_600_000 },
  });
  t.after(() => Promise.all(subs.map((s) => s.stop())));
  const kafka = new Kafka({ brokers: infra().kafkaBrokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  t.after(() => producer.disconnect());

  /** Every record that reaches the dead-letter topic `dlq`, collected as it arrives. */
  const deadLetters = async (dlq: string) => {
    const dead: Array<{ value: string; key: Buffer | null; raw: Buffer | null; headers: Record<string, string> }> = [];
    const consumer = kafka.consumer({ groupId: uniqueName('dlq-reader') });
    await consumer.connect();
    t.after(() => consumer.disconnect());
    await consumer.subscribe({ topic: `${prefix}${dlq}`, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message: m }) => {
        const headers = Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, String(v)]));
        dead.push({ value: m.value?.toString() ?? '', key: m.key, raw: m.value, headers });
      },
    });
    return dead;
  };
  return { store, producer, prefix, deadLetters, groupId: options.groupId };
}

// A Kafka producer that is not our gateway writes the public input topic directly: valid events
// are stored in order, invalid records go to the dead-letter topic with their reason and do not
// stop the ones behind them, and events with an id get an outcome either way.
test('direct producers: valid events land in order, poison records are dead-lettered with a reason', async (t) => {
  const { store, producer, prefix, deadLetters } = await directProducer(t);
  const group = 'contract-group';
  const at = new Date().toISOString();
  const message = (id: string, messageId: string, sender: string, content: string) =>
    JSON.stringify({
      id,
      type: 'group_chat.message.received',
      occurred_at: at,
      source: 'third-party',
      data: { group_id: group, message_id: messageId, create_time: '2025-03-01T09:00:00Z', sender, content },
    });
  await producer.send({
    topic: `${prefix}${TOPICS.groupChatInput.name}`,
    messages: [
      { key: group, value: message('ev-a', 'm-a', 'alice', 'first') },
      { key: group, value: '{not json' },
      {
        key: group,
        value: JSON.stringify({
          id: 'ev-bad',
          type: 'group_chat.message.received',
          occurred_at: at,
          data: { group_id: group, message_id: 'm-x', content: 'no sender, no time' },
        }),
      },
      {
        key: group,
        value: JSON.stringify({
          id: 'ev-meta',
          type: 'group_chat.conversation_meta.upserted',
          occurred_at: at,
          data: {
            version: '1',
            scene: 'group_chat',
            scene_desc: 'd',
            name: 'Contract',
            description: 'd',
            group_id: group,
            created_at: '2025-03-01T08:00:00Z',
            default_timezone: 'Europe/Paris',
            user_details: { bob: { full_name: 'Bob Builder', role: 'bot' } },
          },
        }),
      },
      { key: group, value: message('ev-b', 'm-b', 'bob', 'second') },
      { key: group, value: message('ev-a-again', 'm-a', 'alice', 'first, resent') },
    ],
  });

  const stored = await waitFor('both valid messages stored', async () => {
    const page = await listMessages(store, { conversationId: group, limit: 10, offset: 0, order: 'oldest-first' });
    return page.total === 2 && (await findRequestOutcome(store, 'ev-a-again')) ? page.items : undefined;
  });
  assert.deepEqual(
    stored.map((m) => [m.seq, m.message_id, m.content]),
    [
      [0, 'm-a', 'first'],
      [1, 'm-b', 'second'],
    ],
  );
  assert.equal(stored[1]!.sender_name, 'Bob Builder', 'metadata applied between the messages around it');
  assert.equal(stored[1]!.role, 'assistant');
  assert.deepEqual(stored[1]!.metadata, { group_name: 'Contract', scene: 'group_chat', timezone: 'Europe/Paris' });

  assert.equal((await findRequestOutcome(store, 'ev-a'))?.duplicate, false);
  assert.equal((await findRequestOutcome(store, 'ev-a-again'))?.duplicate, true);
  const bad = await waitFor('the invalid event has an outcome', () => findRequestOutcome(store, 'ev-bad'));
  assert.equal(bad.status, 'failed');
  assert.equal(bad.error_code, 'INVALID_EVENT');
  assert.match(bad.error_message ?? '', /sender/);

  const dead = await deadLetters(TOPICS.groupChatInput.dlq);
  await waitFor('two dead letters', async () => dead.length >= 2);
  assert.equal(dead.length, 2);
  assert.equal(dead[0]!.value, '{not json');
  assert.equal(dead[0]!.headers[DLQ_HEADERS.reason], 'record value is not JSON');
  assert.equal(dead[1]!.headers[DLQ_HEADERS.code], 'INVALID_EVENT');
  assert.match(dead[1]!.headers[DLQ_HEADERS.reason]!, /sender/);
  // the names on the wire: a replay tool writes back to the topic the records came from
  assert.equal(dead[1]!.headers[DLQ_HEADERS.topic], `${prefix}${TOPICS.groupChatInput.name}`);
});

// JSON.parse reads a `__proto__` key as data, which the schema's records then drop, and 1e400 as
// Infinity, which is stored as null: a direct producer's record holding either would be stored
// other than as written. The HTTP API refuses both with a 400; the topic dead-letters them. A
// record nested thousands of levels deep fails wherever the stack runs out on its way, so records
// are bounded (MAX_RECORD_DEPTH) and refused once, with that reason.
test("direct producers: a record with a __proto__ key, a number past a double's range or nesting past the records' limit is dead-lettered with the reason, and nothing of it is stored", async (t) => {
  const { store, producer, prefix, deadLetters } = await directProducer(t);
  const at = new Date().toISOString();
  // JSON.stringify writes neither: each record is written with a marker, then the marker replaced
  const appended = (id: string, conversation: string, marker: { metadata?: string; part?: string }) =>
    JSON.stringify({
      id,
      type: 'conversation.messages.appended',
      occurred_at: at,
      data: {
        conversation_id: conversation,
        group_id: conversation,
        messages: [
          {
            message_id: `${conversation}-1`,
            role: 'user',
            visibility: 'user',
            channel: 'history',
            client_id: null,
            user_id: 'ann',
            epoch: null,
            content: [{ type: 'text', text: 'The harbour opens at nine.', ...(marker.part ? { score: 'PART' } : {}) }],
            metadata: marker.metadata ? { METADATA: 1 } : { source: 'direct' },
            parent_message_id: null,
            created_at: at,
          },
        ],
        create_if_missing: true,
        owner_user_id: 'ann',
      },
    })
      .replace('"METADATA":1', marker.metadata ?? '')
      .replace('"PART"', marker.part ?? '');
  const records = [
    appended('ev-proto', 'c-proto', { metadata: '"__proto__":{"admin":true}' }),
    appended('ev-huge', 'c-huge', { part: '1e400' }),
    // deeper than JSON.stringify and PostgreSQL's jsonb parser take
    appended('ev-deep', 'c-deep', { metadata: `"deep":${'['.repeat(5000)}1${']'.repeat(5000)}` }),
    appended('ev-clean', 'c-clean', {}),
  ];
  assert.match(records[0]!, /"metadata":\{"__proto__":\{"admin":true\}\}/);
  assert.match(records[1]!, /"score":1e400\}/);
  await producer.send({
    topic: `${prefix}${TOPICS.conversationInput.name}`,
    messages: records.map((value, i) => ({ key: ['c-proto', 'c-huge', 'c-deep', 'c-clean'][i]!, value })),
  });

  const dead = await deadLetters(TOPICS.conversationInput.dlq);
  await waitFor('three dead letters', async () => dead.length >= 3);
  const reasons = Object.fromEntries(dead.map((d) => [JSON.parse(d.value).id as string, d.headers]));
  assert.deepEqual(Object.keys(reasons).sort(), ['ev-deep', 'ev-huge', 'ev-proto']);
  for (const headers of Object.values(reasons)) {
    assert.equal(headers[DLQ_HEADERS.code], 'INVALID_EVENT');
    assert.equal(headers[DLQ_HEADERS.topic], `${prefix}${TOPICS.conversationInput.name}`);
  }
  assert.match(
    reasons['ev-proto']![DLQ_HEADERS.reason]!,
    /invalid field data\.messages\.0\.metadata\.__proto__: the keys __proto__ and constructor\.prototype are not accepted/,
  );
  assert.match(
    reasons['ev-huge']![DLQ_HEADERS.reason]!,
    /invalid field data\.messages\.0\.content\.0\.score: the number is past the range/,
  );
  assert.match(reasons['ev-deep']![DLQ_HEADERS.reason]!, /the record nests deeper than 200 levels/);

  const stored = await waitFor('the clean record is stored', async () => {
    const { rows } = await store.query<{ conversation_id: string; metadata: unknown }>(
      'SELECT conversation_id, metadata FROM messages ORDER BY conversation_id',
    );
    return rows.length > 0 ? rows : undefined;
  });
  assert.deepEqual(
    stored.map((r) => r.conversation_id),
    ['c-clean'],
  );
  const conversations = await store.query<{ id: string }>('SELECT id FROM conversations ORDER BY id');
  assert.deepEqual(
    conversations.rows.map((r) => r.id),
    ['c-clean'],
    'no dead-lettered record made its conversation',
  );
});

// What librdkafka and Java producers met (issue 50): bytes of another encoding, a NUL in a key
// name, a correlation header longer than the envelope's field, a tombstone without a key. Each is
// refused with a reason a header and a status can hold, and its dead letter is a faithful copy.
test('direct producers (librdkafka): Latin-1 bytes, a NUL in a key name, a long correlation header, a tombstone and a record whose stored event would not fit are dead-lettered with a printable reason and a failed status; a BOM is skipped', async (t) => {
  const groupId = uniqueName('converter');
  const { store, prefix, deadLetters } = await directProducer(t, { groupId });
  const group = uniqueName('bytes');
  const event = (id: string, messageId: string, content: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      id,
      type: 'group_chat.message.received',
      occurred_at: new Date().toISOString(),
      data: {
        group_id: group,
        message_id: messageId,
        create_time: '2025-03-01T09:00:00Z',
        sender: 'ann',
        content,
        ...extra,
      },
    });
  const latin1 = Buffer.from(event('ev-latin1', 'm-latin1', 'caf\u00e9'), 'latin1');
  assert.equal(latin1.includes(Buffer.from([0xe9])), true, 'the e-acute is one Latin-1 byte');
  // Written by librdkafka, as a producer outside memstream writes; librdkafka keeps a batch within
  // its batch.size, so the large record goes in one of its own.
  await produceRawWithLibrdkafka(`${prefix}${TOPICS.groupChatInput.name}`, [
    { key: group, value: latin1 },
    { key: group, value: event('ev-nul', 'm-nul', 'hello', { 'note\u0000x': 1 }) },
    { key: group, value: event('ev-corr', 'm-corr', 'hello'), headers: { 'x-correlation-id': 'c'.repeat(301) } },
    { key: null, value: null },
    {
      key: group,
      value: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(event('ev-bom', 'm-bom', 'bom'))]),
    },
    { key: group, value: event('ev-ok', 'm-ok', 'caf\u00e9', {}) },
    // under the broker's limit, but its stored event would not be: refused before it is stored
    { key: group, value: event('ev-big', 'm-big', 'z'.repeat(990_000)) },
  ]);

  const stored = await waitFor('the two good records are stored', async () => {
    const page = await listMessages(store, { conversationId: group, limit: 10, offset: 0, order: 'oldest-first' });
    return page.total >= 2 ? page.items : undefined;
  });
  assert.deepEqual(
    stored.map((m) => [m.message_id, m.content]),
    [
      ['m-bom', 'bom'],
      ['m-ok', 'caf\u00e9'],
    ],
  );
  for (const [id, reason] of [
    ['ev-latin1', /not valid UTF-8/],
    ['ev-nul', /\\u0000/],
    ['ev-corr', /x-correlation-id has 301 characters; at most 200/],
    ['ev-big', /takes at most 934464, so that the events made from it fit/],
  ] as const) {
    const outcome = await waitFor(`${id} has an outcome`, () => findRequestOutcome(store, id));
    assert.equal(outcome.status, 'failed', id);
    assert.match(outcome.error_message ?? '', reason, id);
  }

  const dead = await deadLetters(TOPICS.groupChatInput.dlq);
  await waitFor('five dead letters', async () => dead.length >= 5);
  assert.equal(dead.length, 5);
  for (const d of dead) {
    assert.equal(d.headers[DLQ_HEADERS.topic], `${prefix}${TOPICS.groupChatInput.name}`);
    assert.equal(d.headers[DLQ_HEADERS.groupId], `${prefix}${groupId}`);
    assert.doesNotMatch(d.headers[DLQ_HEADERS.reason]!, /\u0000/, 'no NUL in a header');
  }
  // A null key goes to any partition of the dead-letter topic, so the four come in no set order.
  assert.ok(
    dead.some((d) => d.raw?.equals(latin1)),
    'the dead letter holds the bytes as written',
  );
  const tombstone = dead.find((d) => d.raw === null);
  assert.ok(tombstone, 'a null value stays null');
  assert.equal(tombstone.key, null, 'a null key stays null');
  assert.match(tombstone.headers[DLQ_HEADERS.reason]!, /tombstone/);
});

// Two deployments sharing a cluster, each with its own topic prefix and the same (default)
// consumer group id: the prefix names the groups too, so neither joins the other's group.
test('two deployments with their own prefixes and one consumer group id each store every record of their own', async (t) => {
  const groupId = uniqueName('converter');
  const deployments = [await directProducer(t, { groupId }), await directProducer(t, { groupId })];
  const group = uniqueName('shared-cluster');
  for (const [d, deployment] of deployments.entries()) {
    await deployment.producer.send({
      topic: `${deployment.prefix}${TOPICS.groupChatInput.name}`,
      messages: Array.from({ length: 12 }, (_, i) => ({
        key: `${group}-${i % 4}`,
        value: JSON.stringify({
          id: `ev-${d}-${i}`,
          type: 'group_chat.message.received',
          occurred_at: new Date().toISOString(),
          data: {
            group_id: `${group}-${i % 4}`,
            message_id: `m-${i}`,
            create_time: '2025-03-01T09:00:00Z',
            sender: 'ann',
            content: `n${i}`,
          },
        }),
      })),
    });
  }
  for (const deployment of deployments) {
    await waitFor('all 12 records stored', async () => {
      const { rows } = await deployment.store.query<{ n: string }>('SELECT count(*) AS n FROM messages');
      return Number(rows[0]!.n) === 12;
    });
  }
});
