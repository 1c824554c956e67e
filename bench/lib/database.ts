import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Queryable, Store } from '@memstream/store';

/** A database of its own on the server DATABASE_URL points at, so a run never sees another's rows. */
export async function createDatabase(
  adminUrl: string,
  name: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

export async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, statement_timeout: 30_000 });
  await client.connect();
  return client;
}

async function withClient<T>(url: string, use: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = await connect(url);
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

export async function countMessages(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM messages');
  return Number(rows[0]!.n);
}

/**
 * The number of stored messages, read from the conversations' counters: the converter bumps a
 * conversation's next_seq in the transaction that inserts its messages, numbering from 0 without
 * gaps, so the sum equals count(*) at every commit. It reads one row per conversation instead of
 * scanning every message: count(*) over 150,000 rows every 25 ms would cost Postgres a third of
 * a core, on the machine being measured. Each wait confirms the end with a real count(*).
 */
async function storedByCounters(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>('SELECT coalesce(sum(next_seq), 0) AS n FROM conversations');
  return Number(rows[0]!.n);
}

export interface CountReached {
  /** performance.now() when the count was first seen at the target, or undefined on timeout. */
  readonly reachedAt: number | undefined;
  readonly count: number;
}

/**
 * Polls the row count until it reaches `target`, or `failure` names a reason to stop (a service
 * died: its rows will never come). The time recorded is when the successful query
 * was sent: its snapshot is taken then, so every row it counted was committed by that moment.
 */
export async function waitForCount(
  client: pg.Client,
  target: number,
  timeoutMs: number,
  failure: () => string | undefined,
  pollMs = 25,
): Promise<CountReached> {
  const deadline = performance.now() + timeoutMs;
  let count = 0;
  while (performance.now() < deadline) {
    const failed = failure();
    if (failed) throw new Error(`gave up waiting for ${target} rows at ${count}: ${failed}`);
    const sentAt = performance.now();
    count = await storedByCounters(client);
    if (count >= target) {
      const counted = await countMessages(client);
      if (counted < count) throw new Error(`conversation counters say ${count} messages, count(*) says ${counted}`);
      return { reachedAt: sentAt, count: counted };
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return { reachedAt: undefined, count };
}

/**
 * How many transactions stored the messages whose ids start with `prefix`. Every row of one
 * transaction has the same stored_at (now() is the transaction's start), so distinct values count
 * the converter's transactions without touching its code: messages per transaction is its batch size.
 */
export async function storingTransactions(client: pg.Client, prefix: string): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    'SELECT count(DISTINCT stored_at) AS n FROM messages WHERE starts_with(message_id, $1)',
    [prefix],
  );
  return Number(rows[0]!.n);
}

/** One row as the converter would store it, for the COPY ceiling. */
export interface CopyRow {
  readonly conversationId: string;
  readonly seq: number;
  readonly messageId: string;
  readonly sender: string;
  readonly content: string;
  readonly createdAt: string;
}

const COPY_TABLE = `CREATE TABLE bench_copy (
  conversation_id text, seq bigint, message_id text, sender_id text, sender_name text, role text,
  content text, created_at timestamptz, stored_at timestamptz, refer_list jsonb, metadata jsonb,
  source_api text, PRIMARY KEY (conversation_id, seq), UNIQUE (conversation_id, message_id))`;

/**
 * The ceiling: the same rows streamed with one COPY into a table shaped like `messages` (both
 * unique indexes, no triggers, no conversation counter). Text values must hold no tab, newline or
 * backslash: the benchmark's generated content does not, so no escaping is spent here.
 */
export async function copyRows(
  url: string,
  count: number,
  rowAt: (i: number) => CopyRow,
): Promise<{ elapsedMs: number; rows: number }> {
  return withClient(url, async (client) => {
    await client.query(COPY_TABLE);
    const storedAt = new Date().toISOString();
    const lines = function* () {
      const chunk: string[] = [];
      for (let i = 0; i < count; i++) {
        const r = rowAt(i);
        chunk.push(
          `${r.conversationId}\t${r.seq}\t${r.messageId}\t${r.sender}\t${r.sender}\tuser\t${r.content}\t${r.createdAt}\t${storedAt}\t[]\t{}\tevermemos\n`,
        );
        if (chunk.length === 1000) yield chunk.splice(0).join('');
      }
      if (chunk.length > 0) yield chunk.join('');
    };
    const started = performance.now();
    await pipeline(Readable.from(lines()), client.query(copyFrom('COPY bench_copy FROM STDIN')));
    const elapsedMs = performance.now() - started;
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM bench_copy');
    return { elapsedMs, rows: Number(rows[0]!.n) };
  });
}

/** A client as the store's statements take it (recountKeywords after a bulk load). */
export const asQueryable = (client: pg.ClientBase): Pick<Queryable, 'query'> =>
  client as unknown as Pick<Queryable, 'query'>;

/** A client as a store with transactions on it (foldKeywordCounts beside a bulk load). */
export const asStore = (client: pg.ClientBase): Pick<Store, 'query' | 'transaction'> => ({
  query: (sql, params) => asQueryable(client).query(sql, params),
  transaction: async (fn) => {
    await client.query('BEGIN');
    try {
      const result = await fn(asQueryable(client) as Queryable);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  },
});
