import { databaseNow } from '../../database-clock.js';
import type { Queryable, Store } from '../../store.js';
import { leaseFrom } from './job-row-leases.js';

/**
 * Takes the lease of a periodic job that one replica at a time runs, for `leaseMs`: when nobody
 * holds it (never taken, released, or its holder died and the lease ran out) and the job did not
 * complete less than `minGapMs` ago (replicas that wake up one after the other run it once).
 */
export async function claimJobLease(
  store: Store,
  o: { name: string; owner: string; leaseMs: number; minGapMs: number },
): Promise<boolean> {
  // Both times are computed from the database's clock first, and compared as plain values: an
  // upsert's DO UPDATE on a reference table takes only IMMUTABLE expressions on Citus, and
  // timestamp arithmetic is not (it depends on the session's time zone).
  const { rows: times } = await store.query<{ until: string; gap: string; now: string }>(
    `SELECT (t + make_interval(secs => $1::float8 / 1000))::text AS until,
            (t - make_interval(secs => $2::float8 / 1000))::text AS gap, t::text AS now
       FROM (SELECT clock_timestamp() AS t) c`,
    [o.leaseMs, o.minGapMs],
  );
  const { until, gap, now } = times[0]!;
  const { rows } = await store.query<{ name: string }>(
    `INSERT INTO job_leases AS l (name, owner, leased_until)
     VALUES ($1, $2, $3::timestamptz)
     ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, leased_until = EXCLUDED.leased_until
     WHERE (l.leased_until IS NULL OR l.leased_until < $5::timestamptz)
       AND (l.last_completed_at IS NULL OR l.last_completed_at < $4::timestamptz)
     RETURNING l.name`,
    [o.name, o.owner, until, gap, now],
  );
  return rows.length > 0;
}

/** Renews the lease `owner` holds (inside a batch's transaction); false when it is no longer theirs. */
export async function renewJobLease(
  q: Queryable,
  o: { name: string; owner: string; leaseMs: number },
): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE job_leases SET leased_until = ${leaseFrom('$4', '$3')}
     WHERE name = $1 AND owner = $2`,
    [o.name, o.owner, o.leaseMs, await databaseNow(q)],
  );
  return (rowCount ?? 0) > 0;
}

/** Gives the lease back; `completed` records the run as done (the others wait `minGapMs` from now). */
export async function releaseJobLease(
  q: Queryable,
  o: { name: string; owner: string; completed: boolean },
): Promise<void> {
  await q.query(
    `UPDATE job_leases SET owner = NULL, leased_until = NULL,
       last_completed_at = CASE WHEN $3 THEN $4::timestamptz ELSE last_completed_at END
     WHERE name = $1 AND owner = $2`,
    [o.name, o.owner, o.completed, o.completed ? await databaseNow(q) : null],
  );
}
