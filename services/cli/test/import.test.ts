import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { TOPICS, parseCreateTime, type GroupChatInput } from '@memstream/schemas';
import { parseLocomoDateTime } from '@memstream/cli';
import { freshDatabase, infra, uniqueName, waitFor, kafkaTopicPrefix } from '../../../test/helpers/infra.js';
import { startServing } from '../../../harness/processes.js';
import {
  REPO_ROOT,
  allMessages,
  conversationMeta,
  memstream,
  startEmbeddedService,
  summaryOf,
  tempDir,
} from './cli-helpers.js';

const EXAMPLE = resolve(REPO_ROOT, 'examples/group-chat.json');
const LOCOMO = resolve(REPO_ROOT, '../shared/data/locomo-dev.json');

interface ExampleFile {
  conversation_meta: {
    group_id: string;
    name: string;
    default_timezone: string;
    user_details: Record<string, unknown>;
  };
  conversation_list: Array<Record<string, unknown> & { message_id: string; create_time: string }>;
}

async function example(): Promise<ExampleFile> {
  return JSON.parse(await readFile(EXAMPLE, 'utf8')) as ExampleFile;
}

test('an invalid file is reported in full, with every error located, and nothing is sent', async (t: TestContext) => {
  const base = await startEmbeddedService(t);
  const file = await example();
  const groupId = uniqueName('invalid');
  file.conversation_meta.group_id = groupId;
  file.conversation_list[2]!.create_time = 'yesterday at noon';
  delete file.conversation_list[5]!['sender'];
  file.conversation_list[6]!['content'] = 42;
  const path = join(await tempDir(t, 'memstream-invalid-'), 'bad.json');
  await writeFile(path, JSON.stringify(file));

  const run = await memstream('import', '--input', path, '--api-url', base);

  assert.equal(run.code, 1, run.stderr);
  const errors = run.stderr.split('\n').filter((l) => l.startsWith('conversation '));
  assert.deepEqual(errors, [
    'conversation 0, message 2 (ex_003): invalid field create_time: must be an ISO 8601 date-time',
    'conversation 0, message 5 (ex_006): missing required field sender',
    'conversation 0, message 6 (ex_007): invalid field content: Invalid input: expected string, received number',
  ]);
  assert.match(run.stderr, /3 errors; nothing was sent/);
  assert.equal(run.stdout, '');
  assert.deepEqual(await allMessages(base, groupId), []);
  assert.equal((await conversationMeta(base, groupId)).status, 404, 'not even the metadata was sent');
});

test('the example file is stored over HTTP in file order with its original timestamps; a re-import stores nothing new', async (t: TestContext) => {
  const base = await startEmbeddedService(t);
  const file = await example();
  const groupId = file.conversation_meta.group_id;

  const first = await memstream('import', '--input', EXAMPLE, '--api-url', base);
  assert.equal(first.code, 0, first.stderr);
  const n = file.conversation_list.length;
  assert.deepEqual(summaryOf(first), {
    ...summaryOf(first),
    conversations: 1,
    messages: n,
    sent: n,
    stored: n,
    duplicate: 0,
    accepted: 0,
    failed: 0,
  });

  const stored = await allMessages(base, groupId);
  assert.deepEqual(
    stored.map((m) => m.message_id),
    file.conversation_list.map((m) => m.message_id),
  );
  assert.deepEqual(
    stored.map((m) => m.sequence),
    [...Array(n).keys()],
  );
  stored.forEach((m, i) => {
    const expected = parseCreateTime(file.conversation_list[i]!.create_time)!;
    assert.equal(new Date(m.timestamp).getTime(), expected.getTime(), `timestamp of ${m.message_id}`);
  });
  // The message without a zone is UTC; the one without sender_name is named from the metadata.
  assert.equal(stored[4]!.timestamp, '2025-03-03T08:10:00.000Z');
  assert.equal(stored[5]!.sender_name, 'Bob Okafor');
  assert.deepEqual(stored[3]!.refer_list, ['ex_003']);
  assert.equal(stored[0]!.group_name, file.conversation_meta.name);

  const meta = await conversationMeta(base, groupId);
  assert.equal(meta.status, 200);
  assert.equal(meta.result['name'], file.conversation_meta.name);
  assert.equal(meta.result['default_timezone'], file.conversation_meta.default_timezone);
  assert.deepEqual(meta.result['user_details'], file.conversation_meta.user_details);

  const second = await memstream('import', '--input', EXAMPLE, '--api-url', base);
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(summaryOf(second), { ...summaryOf(second), sent: n, stored: 0, duplicate: n, failed: 0 });
  assert.equal((await allMessages(base, groupId)).length, n);
});

/** Every turn of the LoCoMo file with its session's date-time, read straight from the source. */
async function locomoTurns(): Promise<Map<string, Array<{ dia_id: string; when: string }>>> {
  const samples = JSON.parse(await readFile(LOCOMO, 'utf8')) as Array<{
    sample_id: string;
    conversation: Record<string, unknown>;
  }>;
  const bySample = new Map<string, Array<{ dia_id: string; when: string }>>();
  for (const { sample_id: id, conversation } of samples) {
    const sessions = Object.keys(conversation)
      .map((k) => /^session_(\d+)$/.exec(k)?.[1])
      .filter((n): n is string => n !== undefined)
      .sort((a, b) => Number(a) - Number(b));
    bySample.set(
      id,
      sessions.flatMap((n) =>
        (conversation[`session_${n}`] as Array<{ dia_id: string }>).map((turn) => ({
          dia_id: turn.dia_id,
          when: conversation[`session_${n}_date_time`] as string,
        })),
      ),
    );
  }
  return bySample;
}

test('LoCoMo dates are read as UTC wall-clock times', () => {
  assert.equal(parseLocomoDateTime('1:56 pm on 8 May, 2023')?.toISOString(), '2023-05-08T13:56:00.000Z');
  assert.equal(parseLocomoDateTime('12:09 am on 13 September, 2023')?.toISOString(), '2023-09-13T00:09:00.000Z');
  assert.equal(parseLocomoDateTime('12:30 pm on 1 Jan, 2024')?.toISOString(), '2024-01-01T12:30:00.000Z');
  assert.equal(parseLocomoDateTime('10:00 am on 31 April, 2023'), undefined);
  assert.equal(parseLocomoDateTime('13:00 pm on 1 May, 2023'), undefined);
});

test('LoCoMo converted and imported over HTTP stores every turn at its session time, in order', async (t: TestContext) => {
  const dir = await tempDir(t, 'memstream-locomo-');
  const converted = join(dir, 'locomo-groupchat.json');
  const conversion = await memstream('locomo-to-groupchat', '--input', LOCOMO, '--output', converted);
  assert.equal(conversion.code, 0, conversion.stderr);
  const turns = await locomoTurns();
  const total = [...turns.values()].reduce((n, list) => n + list.length, 0);
  assert.match(conversion.stdout, new RegExp(`${turns.size} conversations, ${total} messages`));

  const base = await startEmbeddedService(t);
  const run = await memstream('import', '--input', converted, '--api-url', base, '--concurrency', '4');
  assert.equal(run.code, 0, run.stderr);
  const summary = summaryOf(run);
  assert.deepEqual(
    { ...summary },
    { ...summary, conversations: turns.size, messages: total, stored: total, failed: 0 },
  );
  t.diagnostic(`LoCoMo: ${total} turns of ${turns.size} conversations imported in ${summary['seconds']} s`);

  for (const [sampleId, source] of turns) {
    const stored = await allMessages(base, `locomo-${sampleId}`);
    assert.equal(stored.length, source.length, `turns stored for ${sampleId}`);
    assert.deepEqual(
      stored.map((m) => m.message_id),
      source.map((s) => s.dia_id),
      `order of ${sampleId}`,
    );
    stored.forEach((m, i) => {
      assert.equal(m.sequence, i);
      assert.equal(
        m.timestamp,
        parseLocomoDateTime(source[i]!.when)!.toISOString(),
        `time of ${sampleId} ${m.message_id}`,
      );
    });
  }
  // One hand-checked turn, so the test does not only agree with the converter's own parser.
  const first = (await allMessages(base, 'locomo-conv-26'))[0]!;
  assert.deepEqual(
    [first.message_id, first.timestamp, first.sender_name],
    ['D1:1', '2023-05-08T13:56:00.000Z', 'Caroline'],
  );

  // --format locomo converts on the fly; the same turns are then all duplicates.
  const again = await memstream('import', '--input', LOCOMO, '--format', 'locomo', '--api-url', base);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(summaryOf(again), { ...summaryOf(again), duplicate: total, stored: 0, failed: 0 });
});

test('--kafka produces valid events in file order that the converter stores once, also when imported twice', async (t: TestContext) => {
  const file = await example();
  const groupId = file.conversation_meta.group_id;
  const prefix = kafkaTopicPrefix('cli');
  const brokers = infra().kafkaBrokers;

  const run = await memstream('import', '--input', EXAMPLE, '--kafka', brokers.join(','), '--topic-prefix', prefix);
  assert.equal(run.code, 0, run.stderr);
  const n = file.conversation_list.length;
  assert.deepEqual(summaryOf(run), { ...summaryOf(run), sent: n, accepted: n, failed: 0 });

  const events = await readTopic(t, brokers, `${prefix}${TOPICS.groupChatInput.name}`, n + 1);
  const parsed = events.map(({ value }) => TOPICS.groupChatInput.schema.parse(JSON.parse(value)) as GroupChatInput);
  assert.equal(new Set(events.map((e) => e.partition)).size, 1, 'one group, one partition');
  assert.ok(events.every((e) => e.key === groupId));
  assert.equal(parsed[0]!.type, 'group_chat.conversation_meta.upserted');
  assert.deepEqual(
    parsed.slice(1).map((e) => (e.type === 'group_chat.message.received' ? e.data.message_id : e.type)),
    file.conversation_list.map((m) => m.message_id),
  );
  assert.equal(parsed[1]!.id, `import:${groupId}:ex_001`);

  // The distributed pipeline behind the topic: converter and read API on Kafka and Postgres.
  const shared = {
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_TOPIC_PREFIX: prefix,
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
    LOG_LEVEL: 'warn',
  };
  const [, { base: readApi }] = await Promise.all([
    startServing(t, 'services/converter/src/main.ts', shared),
    startServing(t, 'services/api/src/main-read-api.ts', shared),
  ]);
  await waitFor('every message stored', async () => (await allMessages(readApi, groupId)).length === n, 60_000);

  // A second import, then one more message behind it on the same partition: once that one is
  // stored, the re-sent messages before it have been handled, and must have left no new rows.
  assert.equal(
    (await memstream('import', '--input', EXAMPLE, '--kafka', brokers.join(','), '--topic-prefix', prefix)).code,
    0,
  );
  const extended = await example();
  extended.conversation_list.push({
    message_id: 'ex_009',
    create_time: '2025-03-03T09:20:00+01:00',
    sender: 'u_bob',
    content: 'Done.',
  });
  const extendedPath = join(await tempDir(t, 'memstream-kafka-'), 'extended.json');
  await writeFile(extendedPath, JSON.stringify(extended));
  assert.equal(
    (await memstream('import', '--input', extendedPath, '--kafka', brokers.join(','), '--topic-prefix', prefix)).code,
    0,
  );
  const stored = await waitFor(
    'the extra message stored',
    async () => {
      const all = await allMessages(readApi, groupId);
      return all.some((m) => m.message_id === 'ex_009') ? all : undefined;
    },
    60_000,
  );
  assert.deepEqual(
    stored.map((m) => m.message_id),
    [...file.conversation_list.map((m) => m.message_id), 'ex_009'],
  );
  assert.deepEqual(
    stored.map((m) => m.sequence),
    [...Array(n + 1).keys()],
  );
});

async function readTopic(t: TestContext, brokers: string[], topic: string, count: number) {
  const kafka = new Kafka({ clientId: 'cli-test', brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: uniqueName('cli-test') });
  t.after(() => consumer.disconnect());
  const seen: Array<{ partition: number; key: string | undefined; value: string }> = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      seen.push({ partition, key: message.key?.toString(), value: message.value?.toString() ?? '' });
    },
  });
  await waitFor(`${count} events on ${topic}`, async () => seen.length >= count, 60_000);
  await consumer.stop();
  return seen;
}
