import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaBus, type Subscription } from '@memstream/bus';
import { RedisFanout } from '@memstream/fanout';
import { Metrics } from '@memstream/metrics';
import { TOPICS, allTopics } from '@memstream/schemas';
import { PgStore, listMessages, migrate } from '@memstream/store';
import { startConverter } from '@memstream/converter';
import { freshDatabase, infra, kafkaTopicPrefix, uniqueName, waitFor } from '../helpers/infra.js';
import { captureLogger } from '../helpers/logger.js';
import { CODECS, FOREIGN_CLIENTS, produceWith, type ForeignRecord } from '../helpers/foreign-producers.js';

const PARKED = 'a record batch cannot be decoded: its partition is parked until an operator skips the batch';

/** A converter on Kafka with a database, topics and group of its own, which the test may stop and start again. */
async function converterOnKafka(t: TestContext) {
  const { log, lines } = captureLogger('converter');
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 4,
    statementTimeoutMs: 10_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  const prefix = kafkaTopicPrefix('codecs');
  const metrics = new Metrics();
  const bus = new KafkaBus({
    brokers: infra().kafkaBrokers,
    clientId: 'codecs-test',
    topicPrefix: prefix,
    log,
    defaultPartitions: 2,
    replicationFactor: 1,
    requestTimeoutMs: 30_000,
    commitIntervalMs: 50,
    metrics,
  });
  t.after(() => bus.close());
  await bus.ensureTopics(allTopics());
  const fanout = new RedisFanout(infra().redisUrl, log);
  t.after(() => fanout.close());
  const groupId = uniqueName('converter');
  let subs: Subscription[] = [];
  const start = async () => {
    subs = await startConverter({
      bus,
      store,
      fanout,
      log,
      groupId,
      retry: { maxAttempts: 2, initialDelayMs: 10, maxDelayMs: 50 },
      partitionsConcurrently: 2,
      maxBatchSize: 100,
      metaCacheMs: 10_000,
      rules: { maxMessages: 50, maxTokens: 8192, silenceMs: 3_600_000 },
    });
  };
  const stop = () => Promise.all(subs.map((s) => s.stop()));
  t.after(stop);
  const input = `${prefix}${TOPICS.groupChatInput.name}`;
  const contents = async (group: string) =>
    (await listMessages(store, { conversationId: group, limit: 100, offset: 0, order: 'oldest-first' })).items.map(
      (m) => m.content,
    );
  return { start, stop, input, groupId, lines, metrics, contents };
}

function chatMessage(group: string, messageId: string, content: string): string {
  return JSON.stringify({
    id: `ev-${messageId}`,
    type: 'group_chat.message.received',
    occurred_at: new Date().toISOString(),
    data: { group_id: group, message_id: messageId, create_time: '2025-03-01T09:00:00Z', sender: 'alice', content },
  });
}

/** Text that compresses like chat does, long enough to span several of a codec's blocks (lz4's are 64 KiB). */
function longText(seed: number, words: number): string {
  const out: string[] = [];
  for (let i = 0, x = seed; i < words; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(`word${x % 5000}`);
  }
  return out.join(' ');
}

// kafkajs reads only gzip: one batch in snappy, lz4 or zstd, which librdkafka and Java producers
// send routinely, failed every fetch and nothing was stored on any partition. Each client writes
// one batch in each codec, one of its messages longer than a codec block, and every message is
// stored once, byte for byte.
test('batches compressed with gzip, snappy, lz4 or zstd by librdkafka and by Java are each stored once, as written', async (t) => {
  const converter = await converterOnKafka(t);
  await converter.start();
  const expected = new Map<string, string[]>();
  await Promise.all(
    FOREIGN_CLIENTS.map(async (client, c) => {
      const records: ForeignRecord[] = CODECS.flatMap((codec, k) => {
        const group = `${client}-${codec}`;
        const texts = [`${codec} from ${client}: one`, longText(c * 10 + k, 30_000), `${codec} from ${client}: three`];
        expected.set(group, texts);
        return texts.map((text, i) => ({
          codec,
          partition: k % 2,
          key: group,
          value: chatMessage(group, `${group}-${i}`, text),
        }));
      });
      const produced = await produceWith(client, converter.input, records);
      assert.equal(produced.length, records.length, `${client} delivered every record`);
    }),
  );
  for (const [group, texts] of expected) {
    const stored = await waitFor(`${group}'s messages stored`, async () => {
      const got = await converter.contents(group);
      return got.length >= texts.length ? got : undefined;
    });
    assert.deepEqual(stored, texts, `${group}: each message once, in order, as written`);
  }
});

/**
 * Overwrites the compressed records of the batch at `offset` in the local broker's log, as a
 * failing disk would: the broker checks a batch when it takes it, not when it serves it, so every
 * consumer gets the damaged bytes.
 */
function corruptBatch(topic: string, partition: number, offset: string): void {
  const segment = join(
    process.env.MEMSTREAM_INFRA_DIR ?? '/tmp/memstream-infra',
    'kafka/data',
    `${topic}-${partition}`,
    '00000000000000000000.log',
  );
  assert.ok(existsSync(segment), `this test damages a batch on the local broker's disk (scripts/infra): ${segment}`);
  const log = readFileSync(segment);
  for (let at = 0; at + 61 <= log.length; at += 12 + log.readInt32BE(at + 8)) {
    if (log.readBigInt64BE(at) !== BigInt(offset)) continue;
    const end = at + 12 + log.readInt32BE(at + 8);
    const fd = openSync(segment, 'r+');
    try {
      writeSync(fd, Buffer.alloc(end - (at + 61), 0x5a), 0, end - (at + 61), at + 61);
    } finally {
      closeSync(fd);
    }
    return;
  }
  assert.fail(`no batch at offset ${offset} in ${segment}`);
}

// A batch no codec can read used to fail every fetch, so nothing was stored on any partition and
// the converter looked healthy. Now its partition alone stops before it, says so in the log and a
// gauge, the other partition goes on, and the batch is skipped by moving the group's offset.
test('a batch that cannot be decoded parks its partition with an alert while the others flow, until the operator moves the group past it', async (t) => {
  const converter = await converterOnKafka(t);
  const damaged = await produceWith('librdkafka', converter.input, [
    { codec: 'gzip', partition: 0, key: 'parked', value: chatMessage('parked', 'lost-1', 'in the damaged batch') },
    { codec: 'gzip', partition: 0, key: 'parked', value: chatMessage('parked', 'lost-2', 'in the damaged batch too') },
  ]);
  corruptBatch(converter.input, 0, damaged[0]!.offset);
  await produceWith('java', converter.input, [
    { codec: 'lz4', partition: 0, key: 'parked', value: chatMessage('parked', 'after', 'after the damaged batch') },
    { codec: 'lz4', partition: 1, key: 'flowing', value: chatMessage('flowing', 'other', 'on the other partition') },
  ]);
  await converter.start();

  assert.deepEqual(
    await waitFor('the other partition stored', async () => {
      const got = await converter.contents('flowing');
      return got.length > 0 ? got : undefined;
    }),
    ['on the other partition'],
  );
  const alert = await waitFor('the parked partition logged', async () =>
    converter.lines().find((l) => l.msg === PARKED),
  );
  assert.equal(alert.level, 50, 'logged as an error');
  assert.equal(alert.topic, TOPICS.groupChatInput.name);
  assert.equal(alert.partition, 0);
  assert.equal(alert.firstOffset, damaged[0]!.offset);
  assert.equal(alert.lastOffset, damaged[1]!.offset);
  assert.equal(alert.skipTo, String(BigInt(damaged[1]!.offset) + 1n));
  assert.equal(alert.codec, 'gzip');
  const gauge = `memstream_consumer_parked_partitions{topic="${TOPICS.groupChatInput.name}",partition="0",group="${converter.groupId}"} 1`;
  assert.ok((await converter.metrics.render()).body.includes(gauge), gauge);
  assert.deepEqual(await converter.contents('parked'), [], 'nothing of the parked partition is stored past the batch');

  // The operator's step (docs/kafka-topics.md): with the converter stopped, the group's offset on
  // that partition goes to skipTo, as kafka-consumer-groups --reset-offsets --to-offset does.
  await converter.stop();
  const admin = new Kafka({ brokers: infra().kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    assert.equal(alert.brokerTopic, converter.input);
    await admin.setOffsets({
      groupId: String(alert.brokerGroup),
      topic: String(alert.brokerTopic),
      partitions: [{ partition: 0, offset: String(alert.skipTo) }],
    });
  } finally {
    await admin.disconnect();
  }
  await converter.start();
  assert.deepEqual(
    await waitFor('the parked partition goes on past the batch', async () => {
      const got = await converter.contents('parked');
      return got.length > 0 ? got : undefined;
    }),
    ['after the damaged batch'],
  );
  assert.deepEqual(await converter.contents('flowing'), ['on the other partition'], 'nothing stored twice');
});
