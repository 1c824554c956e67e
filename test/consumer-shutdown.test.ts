import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { freshDatabase, infra, uniqueName, waitFor } from './helpers/infra.js';
import { startProcess } from '../harness/processes.js';

test('SIGTERM while a handler runs lets it finish and commit, and the process exits 0', async (t) => {
  const topic = uniqueName('shutdown');
  const groupId = uniqueName('g');
  const databaseUrl = await freshDatabase(t);
  const kafka = new Kafka({ brokers: infra().kafkaBrokers, clientId: 'shutdown-test', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  // after-hooks run in the order they are registered: this one first, while the admin is connected
  t.after(async () => {
    await admin.deleteGroups([groupId]).catch(() => undefined); // a group the consumer never joined is not there
    await admin.deleteTopics({ topics: [topic, `${topic}.dlq`] });
    await admin.disconnect();
  });
  await admin.createTopics({
    topics: [
      { topic, numPartitions: 1 },
      { topic: `${topic}.dlq`, numPartitions: 1 },
    ],
    waitForLeaders: true,
  });

  const consumer = startProcess(t, 'test/fixtures/slow-handler-consumer.ts', {
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    DATABASE_URL: databaseUrl,
    TOPIC: topic,
    GROUP_ID: groupId,
    HANDLER_MS: '2000',
    SHUTDOWN_TIMEOUT_MS: '20000',
  });
  await waitFor('consumer ready', async () => consumer.hasLogged('ready'));
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: [{ key: 'k', value: 'the-record' }] });
  await producer.disconnect();

  await waitFor('handler started', async () => consumer.hasLogged('handler started'));
  consumer.child.kill('SIGTERM');
  assert.equal(await consumer.exited, 0);
  assert.ok(consumer.hasLogged('handler finished'), 'the handler in flight ran to its end');

  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const { rows } = await db.query('SELECT value FROM handled');
  await db.end();
  assert.deepEqual(rows, [{ value: 'the-record' }]);

  const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
  assert.equal(offsets!.partitions[0]!.offset, '1', 'the finished record was committed before exit');
});
