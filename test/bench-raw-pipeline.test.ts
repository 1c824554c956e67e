import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { createHashEmbedder } from '@memstream/embedding';
import { createLogger } from '@memstream/logging';
import { migrate, PgStore } from '@memstream/store';
import { produceRecords } from '../bench/lib/kafka-load.js';
import { rawHeldInserts, startRawConsumer } from '../bench/lib/raw-pipeline.js';
import { prepareLoad, RAW_TABLE } from '../bench/lib/scale-load.js';
import { loadTurns, PassWorkload } from '../bench/lib/scale-workload.js';
import { freshDatabase, infra, kafkaTopicPrefix } from './helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });

test("bench:scale's raw baselines store each record once, in a table with messages' indexes", async (t) => {
  const url = await freshDatabase(t);
  const store = new PgStore({ connectionString: url, maxConnections: 1, statementTimeoutMs: 60_000, log });
  await migrate(store, log);
  await store.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const turns = loadTurns(undefined);
    await prepareLoad(client, turns, createHashEmbedder({ dimension: 8 }));
    const { rows: indexes } = await client.query<{ n: number }>(
      `SELECT (SELECT count(*)::int FROM pg_indexes WHERE tablename = '${RAW_TABLE}')
            - (SELECT count(*)::int FROM pg_indexes WHERE tablename = 'messages') AS n`,
    );
    assert.equal(indexes[0]!.n, 0, 'the raw table has as many indexes as messages');

    const topic = `${kafkaTopicPrefix('raw')}input`;
    const { kafkaBrokers: brokers } = infra();
    const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
    await admin.disconnect();
    const consumer = await startRawConsumer({ brokers, topic, groupId: `${topic}-raw`, url, total: 300 });
    try {
      const workload = new PassWorkload('t', 7, turns);
      await produceRecords({ brokers, topic, total: 300, chunkSize: 64, recordAt: (i) => workload.kafkaRecord(i) });
      const done = await consumer.done;
      assert.equal(done.stored, 300);
    } finally {
      await consumer.stop();
    }
    const held = await rawHeldInserts(url, new PassWorkload('h', 5, turns), 40, 4);
    assert.equal(held.rows, 40);
    const { rows } = await client.query<{ rows: number; messages: number; groups: number }>(
      `SELECT count(*)::int AS rows, count(DISTINCT message_id)::int AS messages, count(DISTINCT conversation_id)::int AS groups
         FROM ${RAW_TABLE}`,
    );
    assert.deepEqual(rows[0], { rows: 340, messages: 340, groups: 12 });
  } finally {
    await client.end();
  }
});
