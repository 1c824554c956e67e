import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { TOPICS } from '@memstream/schemas';
import { confluentKafkaPython, kafkaJars } from '../../harness/foreign-clients.js';
import { REPO_ROOT, runCaptured } from '../../harness/processes.js';
import { distributedEnv, startServices } from '../helpers/distributed.js';
import { infra, waitFor } from '../helpers/infra.js';

const EXAMPLES = resolve(REPO_ROOT, 'examples/kafka-producers');
const COUNT = 5;

/**
 * Groups whose partition under librdkafka's default partitioner (CRC32) differs from murmur2's
 * on the topics' 8 partitions, so an example that drops its partitioner setting fails here.
 */
const GROUPS = { librdkafka: 'guide-python', java: 'guide-java' } as const;

/** Runs an example as its reader would, returning its "event_id partition offset sequence" lines. */
async function runExample(client: keyof typeof GROUPS, args: string[]): Promise<string[][]> {
  const run =
    client === 'java'
      ? await runCaptured('java', ['-cp', `${await kafkaJars()}/*`, resolve(EXAMPLES, 'Produce.java'), ...args])
      : await runCaptured(await confluentKafkaPython(), [resolve(EXAMPLES, 'produce.py'), ...args]);
  assert.equal(run.code, 0, `the ${client} example failed: ${run.stderr.slice(-3000)}`);
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => line.split(' '));
}

async function storedMessages(url: string, group: string): Promise<{ message_id: string; seq: string }[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query<{ message_id: string; seq: string }>(
      'SELECT message_id, seq FROM messages WHERE conversation_id = $1 ORDER BY seq',
      [group],
    );
    return rows;
  } finally {
    await db.end();
  }
}

// The guide's examples are what a producer author copies: each must store its messages once, in
// the order sent, and put a group on the partition the gateway puts it on (librdkafka's default
// partitioner would not, and the group's messages from both would lose their order).
test("the producer guide's Python (librdkafka) and Java examples store each message once, in order, on the gateway's partition for the group", async (t) => {
  const env = await distributedEnv(t, 'guide', { REQUEST_SYNC_TIMEOUT_MS: '30000' });
  const [gateway, readApi] = await startServices(t, env, ['ingest-gateway', 'read-api', 'converter']);
  const topic = `${env.KAFKA_TOPIC_PREFIX}${TOPICS.groupChatInput.name}`;
  const admin = new Kafka({ brokers: infra().kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  t.after(() => admin.disconnect());
  // Just after the services created the topic, a broker may not yet lead a partition it was given.
  const ends = async () =>
    new Map(
      (await waitFor(`${topic}'s offsets`, () => admin.fetchTopicOffsets(topic))).map((p) => [
        p.partition,
        BigInt(p.high),
      ]),
    );

  // One message of each group through the gateway first; its partition is where the gateway's
  // kafkajs producer put it.
  const gatewayPartition = new Map<string, number>();
  for (const group of Object.values(GROUPS)) {
    const before = await ends();
    const res = await fetch(`${gateway}/api/v1/memories`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        group_id: group,
        message_id: `${group}-gateway`,
        create_time: '2025-03-01T09:00:00Z',
        sender: 'gateway-user',
        content: 'through the gateway',
      }),
    });
    assert.equal(res.status, 200, await res.text());
    const after = await ends();
    const grown = [...after].filter(([p, end]) => end > (before.get(p) ?? 0n)).map(([p]) => p);
    assert.equal(grown.length, 1, 'the gateway wrote one partition');
    gatewayPartition.set(group, grown[0]!);
  }

  const brokers = infra().kafkaBrokers.join(',');
  const printed = await Promise.all(
    (['librdkafka', 'java'] as const).map(async (client) => ({
      client,
      lines: await runExample(client, [brokers, env.KAFKA_TOPIC_PREFIX!, readApi!, GROUPS[client], String(COUNT)]),
    })),
  );

  for (const { client, lines } of printed) {
    const group = GROUPS[client];
    assert.equal(lines.length, COUNT, `${client}: a line per message`);
    assert.deepEqual(
      lines.map(([, partition]) => Number(partition)),
      Array(COUNT).fill(gatewayPartition.get(group)),
      `${client}: every message on the gateway's partition for ${group}`,
    );
    assert.deepEqual(
      lines.map(([, , , sequence]) => Number(sequence)),
      Array.from({ length: COUNT }, (_, i) => i + 1),
      `${client}: the example saw each message stored, in order after the gateway's`,
    );
    assert.deepEqual(
      (await storedMessages(env.DATABASE_URL!, group)).map((r) => [r.message_id, Number(r.seq)]),
      [[`${group}-gateway`, 0], ...Array.from({ length: COUNT }, (_, i) => [`${group}-${i}`, i + 1])],
      `${client}: each message stored once, in the order produced`,
    );
  }
});
