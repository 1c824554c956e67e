/**
 * bench:scale's raw baselines, each the least any design must do to store a message once in a
 * table shaped like `messages` (RAW_TABLE: its columns and every one of its indexes, as large as
 * `messages` at the step):
 *
 * - for a held write, one autocommit INSERT per message, `concurrency` at once: one round trip
 *   and one commit per acknowledged write, what holding an HTTP call until stored costs at least;
 * - for the producer path, a plain kafkajs consumer reading the same kind of records from a topic
 *   of the same partitions and inserting each fetched batch with one multi-row statement, then
 *   committing its offsets. It numbers a conversation's messages by their Kafka offsets (unique
 *   within a partition, and a conversation keys one partition): gapless numbering is our cost, so
 *   the baseline leaves it out. Redelivery stores nothing twice (ON CONFLICT DO NOTHING).
 */
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { RAW_TABLE } from './scale-load.js';
import type { PassWorkload } from './scale-workload.js';

const COLUMNS =
  '(conversation_id, group_key, seq, message_id, sender_id, sender_name, role, content, created_at, source_api)';

export interface RawFigure {
  readonly rows: number;
  readonly per_s: number;
  /** performance.now() at the first write and when the last row was committed. */
  readonly startedAt: number;
  readonly endedAt: number;
}

/** `total` single-row autocommit INSERTs over `concurrency` connections. */
export async function rawHeldInserts(
  url: string,
  workload: PassWorkload,
  total: number,
  concurrency: number,
): Promise<RawFigure> {
  const pool = new pg.Pool({ connectionString: url, max: concurrency });
  try {
    let next = 0;
    const client = async () => {
      const c = await pool.connect();
      try {
        for (let i = next++; i < total; i = next++) {
          const m = workload.message(i);
          await c.query(
            `INSERT INTO ${RAW_TABLE} ${COLUMNS} VALUES ($1, $1, $2, $3, $4, $4, 'user', $5, $6, 'evermemos')`,
            [m.group_id, i, m.message_id, m.sender, m.content, m.create_time],
          );
        }
      } finally {
        c.release();
      }
    };
    const startedAt = performance.now();
    await Promise.all(Array.from({ length: concurrency }, client));
    const endedAt = performance.now();
    return { rows: total, per_s: Math.round((total * 1000) / (endedAt - startedAt)), startedAt, endedAt };
  } finally {
    await pool.end();
  }
}

export interface RawConsumer {
  /** Resolves when `total` records have been stored and their offsets committed. */
  readonly done: Promise<{ endedAt: number; stored: number }>;
  readonly stop: () => Promise<void>;
}

/**
 * Starts the raw consumer on `topic` and resolves once it has joined its group, so the records
 * produced after it are read as they arrive, as the converter reads its topic.
 */
export async function startRawConsumer(options: {
  brokers: readonly string[];
  topic: string;
  groupId: string;
  url: string;
  total: number;
}): Promise<RawConsumer> {
  const db = new pg.Client({ connectionString: options.url, statement_timeout: 60_000 });
  await db.connect();
  const kafka = new Kafka({ clientId: 'bench-raw', brokers: [...options.brokers], logLevel: logLevel.ERROR });
  const consumer = kafka.consumer({ groupId: options.groupId, maxWaitTimeInMs: 50 });
  await consumer.connect();
  await consumer.subscribe({ topic: options.topic, fromBeginning: true });
  let stored = 0;
  let finish: (v: { endedAt: number; stored: number }) => void = () => undefined;
  let fail: (err: unknown) => void = () => undefined;
  const done = new Promise<{ endedAt: number; stored: number }>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.run({
    eachBatchAutoResolve: true,
    eachBatch: async ({ batch }) => {
      const cols: [string[], string[], string[], string[], string[], string[]] = [[], [], [], [], [], []];
      for (const record of batch.messages) {
        const { data } = JSON.parse(record.value!.toString('utf8')) as {
          data: { group_id: string; message_id: string; sender: string; content: string; create_time: string };
        };
        cols[0].push(data.group_id);
        cols[1].push(record.offset);
        cols[2].push(data.message_id);
        cols[3].push(data.sender);
        cols[4].push(data.content);
        cols[5].push(data.create_time);
      }
      try {
        const { rowCount } = await db.query(
          `INSERT INTO ${RAW_TABLE} ${COLUMNS}
           SELECT c, c, s, m, u, u, 'user', t, a, 'evermemos'
             FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS x(c, s, m, u, t, a)
           ON CONFLICT DO NOTHING`,
          cols,
        );
        stored += rowCount ?? 0;
      } catch (err) {
        fail(err);
        throw err;
      }
    },
  });
  // kafkajs commits a batch's offsets after eachBatch returns; the count is the commit point here.
  consumer.on(consumer.events.COMMIT_OFFSETS, () => {
    if (stored >= options.total) finish({ endedAt: performance.now(), stored });
  });
  await joined;
  return {
    done,
    stop: async () => {
      await consumer.disconnect();
      await db.end();
    },
  };
}
