import { databaseNow } from '../../database-clock.js';
import type { Queryable } from '../../store.js';

/**
 * The lease rules the job tables share (erasure_jobs, eviction_jobs): a job is open while pending
 * or running; while running it is `lease_owner`'s until `leased_until`, which each committed batch
 * pushes on; once that has passed (its process died, or its runner gave up a try) anyone may take
 * it over where it stopped. Only the holder moves a job on or ends it.
 */
export type JobTable = 'erasure_jobs' | 'eviction_jobs';

/**
 * A lease of the milliseconds in the SQL parameter `ms` from the SQL parameter `now`, which holds
 * the database's clock (databaseNow), so that replicas agree on when it runs out.
 */
export const leaseFrom = (now: string, ms: string) =>
  `${now}::timestamptz + make_interval(secs => ${ms}::float8 / 1000)`;

/** A job open and free to take: pending, or running with its lease run out. */
const OPEN = `status IN ('pending', 'running') AND (leased_until IS NULL OR leased_until < clock_timestamp())`;
/** The job is `lease_owner`'s ($2) and running. */
const HELD = `id = $1::uuid AND lease_owner = $2 AND status = 'running'`;

/**
 * The statements that lock a job row, spelt out per table: both are reference tables (copied to
 * every node, where a row lock needs no shard key), which the SQL lint (sql-rules.test.ts) can
 * only tell from a table it reads in the statement.
 */
const LOCKS: Record<
  JobTable,
  { open: (columns: string, only: string, oldestBy: string) => string; held: (columns: string) => string }
> = {
  erasure_jobs: {
    open: (columns, only, oldestBy) =>
      `SELECT ${columns} FROM erasure_jobs WHERE ${OPEN} ${only} ORDER BY ${oldestBy} LIMIT 1 FOR UPDATE SKIP LOCKED`,
    held: (columns) => `SELECT ${columns} FROM erasure_jobs WHERE ${HELD} FOR UPDATE`,
  },
  eviction_jobs: {
    open: (columns, only, oldestBy) =>
      `SELECT ${columns} FROM eviction_jobs WHERE ${OPEN} ${only} ORDER BY ${oldestBy} LIMIT 1 FOR UPDATE SKIP LOCKED`,
    held: (columns) => `SELECT ${columns} FROM eviction_jobs WHERE ${HELD} FOR UPDATE`,
  },
};

/**
 * The given job, or else the oldest open one, if nobody holds it: locked for the caller's
 * transaction, skipping one another transaction is taking meanwhile.
 */
export async function lockOpenJob<J>(
  tx: Queryable,
  table: JobTable,
  o: { columns: string; oldestBy: string; jobId?: string | undefined },
): Promise<J | undefined> {
  const params: unknown[] = [];
  const only = o.jobId === undefined ? '' : `AND id = $${params.push(o.jobId)}::uuid`;
  const { rows } = await tx.query<J & object>(LOCKS[table].open(o.columns, only, o.oldestBy), params);
  return rows[0];
}

/**
 * Makes a job lockOpenJob locked `owner`'s for `leaseMs`, running, with one more try counted;
 * `set` assigns more columns, from parameter $4 on (`params`).
 */
export async function leaseJob<J>(
  tx: Queryable,
  table: JobTable,
  o: { columns: string; jobId: string; owner: string; leaseMs: number; set?: string; params?: unknown[] },
): Promise<J | undefined> {
  const params = [o.jobId, o.owner, o.leaseMs, ...(o.params ?? [])];
  const now = `$${params.push(await databaseNow(tx))}`;
  const { rows } = await tx.query<J & object>(
    `UPDATE ${table} SET status = 'running', lease_owner = $2, attempts = attempts + 1, leased_until = ${leaseFrom(now, '$3')},
       started_at = COALESCE(started_at, ${now}::timestamptz)${o.set ? `, ${o.set}` : ''}
     WHERE id = $1::uuid RETURNING ${o.columns}`,
    params,
  );
  return rows[0];
}

/** The running job `owner` holds, locked for the caller's transaction; undefined once another holds it. */
export async function lockHeldJob<J>(
  tx: Queryable,
  table: JobTable,
  o: { columns: string; jobId: string; owner: string },
): Promise<J | undefined> {
  const { rows } = await tx.query<J & object>(LOCKS[table].held(o.columns), [o.jobId, o.owner]);
  return rows[0];
}

/**
 * Ends the running job `owner` holds, completed or failed with a reason (never content); `set`
 * assigns more columns. Undefined when it is no longer theirs.
 */
export async function endHeldJob<J>(
  q: Queryable,
  table: JobTable,
  o: { columns: string; jobId: string; owner: string; error?: string | undefined; set?: string },
): Promise<J | undefined> {
  const { rows } = await q.query<J & object>(
    `UPDATE ${table} SET status = $3, error = $4, completed_at = $5::timestamptz, leased_until = NULL${o.set ? `, ${o.set}` : ''}
     WHERE id = $1::uuid AND lease_owner = $2 AND status = 'running' RETURNING ${o.columns}`,
    [o.jobId, o.owner, o.error === undefined ? 'completed' : 'failed', o.error ?? null, await databaseNow(q)],
  );
  return rows[0];
}
