import { Kafka, logLevel } from 'kafkajs';
import type pg from 'pg';
import { summarizeLatencies, type LatencySummary } from './stats.js';

/**
 * Round trips the ingest path is built from, each timed on its own with nothing else of the
 * benchmark running: a read-your-writes POST waits for at least two Kafka produces (the gateway's,
 * then the converter's stored event) and one Postgres commit, so these bound its latency from below.
 */
export interface RoundTrips {
  readonly kafka_produce_one_record_ms: LatencySummary;
  readonly postgres_select_1_ms: LatencySummary;
  readonly postgres_insert_commit_ms: LatencySummary;
}

export async function measureRoundTrips(options: {
  brokers: readonly string[];
  topic: string;
  db: pg.Client;
  samples: number;
}): Promise<RoundTrips> {
  const kafka = new Kafka({
    clientId: 'memstream-bench-probe',
    brokers: [...options.brokers],
    logLevel: logLevel.ERROR,
  });
  const admin = kafka.admin();
  await admin.connect();
  await admin
    .createTopics({ topics: [{ topic: options.topic, numPartitions: 1 }], waitForLeaders: true })
    .finally(() => admin.disconnect());
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const produce = await timed(options.samples, () =>
    producer.send({ topic: options.topic, acks: -1, messages: [{ key: 'probe', value: 'x'.repeat(300) }] }),
  ).finally(() => producer.disconnect());

  const { db } = options;
  await db.query('CREATE TABLE bench_probe (id serial PRIMARY KEY, body text NOT NULL)');
  const select = await timed(options.samples, () => db.query('SELECT 1'));
  const insert = await timed(options.samples, () =>
    db.query('INSERT INTO bench_probe (body) VALUES ($1)', ['x'.repeat(300)]),
  );
  await db.query('DROP TABLE bench_probe');
  return { kafka_produce_one_record_ms: produce, postgres_select_1_ms: select, postgres_insert_commit_ms: insert };
}

async function timed(samples: number, call: () => Promise<unknown>): Promise<LatencySummary> {
  await call(); // the first one pays for connections and metadata
  const out = new Float64Array(samples);
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await call();
    out[i] = performance.now() - started;
  }
  return summarizeLatencies(out);
}
