import { databaseNow } from '../../database-clock.js';
import type { Queryable, Store } from '../../store.js';
import { addErasureCounts, noErasureCounts, type ErasureCounts } from '../../participant/erasure-counts.js';
import type { ErasureBatch } from '../../participant/erasure-counts.js';
import { recordAudit } from '../audit-log/audit-log.js';
import { endHeldJob, leaseFrom, leaseJob, lockHeldJob, lockOpenJob } from './job-row-leases.js';

/**
 * The step every erasure job starts at, and every further pass (the governance worker's first):
 * here because the API writes it on the row it makes, and the API runs no erasure.
 */
export const FIRST_ERASURE_STEP = 'owned-conversations';

export type ErasureStatus = 'pending' | 'running' | 'completed' | 'failed';

export interface ErasureJob {
  readonly id: string;
  readonly user_id: string;
  readonly status: ErasureStatus;
  readonly requested_by: string;
  readonly self: boolean;
  readonly justification: string | null;
  readonly step: string;
  readonly passes: number;
  readonly counts: ErasureCounts;
  readonly streams_to_discard: string[];
  readonly attempts: number;
  readonly lease_owner: string | null;
  readonly error: string | null;
  /** Why the job has not finished yet, or why it failed: the last pass or try that fell short (never content). */
  readonly reason: string | null;
  readonly requested_at: Date;
  readonly started_at: Date | null;
  readonly completed_at: Date | null;
}

const COLUMNS = `id::text AS id, user_id, status, requested_by, self, justification, step, passes, counts,
  streams_to_discard, attempts, lease_owner, error, reason, requested_at, started_at, completed_at`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface NewErasureJob {
  readonly userId: string;
  readonly requestedBy: string;
  readonly self: boolean;
  readonly justification?: string | null | undefined;
  /** The step a job starts at (the runner's first). */
  readonly firstStep: string;
}

export async function createErasureJob(q: Queryable, job: NewErasureJob): Promise<ErasureJob> {
  const { rows } = await q.query<ErasureJob>(
    `INSERT INTO erasure_jobs (user_id, requested_by, self, justification, step, counts)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING ${COLUMNS}`,
    [
      job.userId,
      job.requestedBy,
      job.self,
      job.justification ?? null,
      job.firstStep,
      JSON.stringify(noErasureCounts()),
    ],
  );
  return rows[0]!;
}

/** The job, or undefined for an id that is no job (or no uuid at all); `userId` limits it to that person's. */
export async function findErasureJob(
  q: Queryable,
  id: string,
  o: { userId?: string | undefined } = {},
): Promise<ErasureJob | undefined> {
  if (!UUID.test(id)) return undefined;
  const { rows } = await q.query<ErasureJob>(
    `SELECT ${COLUMNS} FROM erasure_jobs WHERE id = $1::uuid AND ($2::text IS NULL OR user_id = $2)`,
    [id, o.userId ?? null],
  );
  return rows[0];
}

/** The latest jobs, newest first; `userId` limits them to that person's. */
export async function listErasureJobs(
  q: Queryable,
  o: { limit: number; userId?: string | undefined },
): Promise<ErasureJob[]> {
  const { rows } = await q.query<ErasureJob>(
    `SELECT ${COLUMNS} FROM erasure_jobs WHERE ($2::text IS NULL OR user_id = $2)
     ORDER BY requested_at DESC, id DESC LIMIT $1`,
    [o.limit, o.userId ?? null],
  );
  return rows;
}

/**
 * Takes a job for `owner` for `leaseMs`: the given one, or else the oldest open job nobody holds
 * (never started, or its holder's lease ran out because its process died). Undefined when there
 * is none to take, or the given one is held or ended.
 */
export async function claimErasureJob(
  store: Store,
  o: { owner: string; leaseMs: number; jobId?: string | undefined },
): Promise<ErasureJob | undefined> {
  if (o.jobId !== undefined && !UUID.test(o.jobId)) return undefined;
  return store.transaction(async (tx) => {
    const open = await lockOpenJob<ErasureJob>(tx, 'erasure_jobs', {
      columns: COLUMNS,
      oldestBy: 'requested_at',
      jobId: o.jobId,
    });
    if (!open) return undefined;
    return leaseJob<ErasureJob>(tx, 'erasure_jobs', {
      columns: COLUMNS,
      jobId: open.id,
      owner: o.owner,
      leaseMs: o.leaseMs,
    });
  });
}

/**
 * Runs `batch` for a job `owner` holds, in one transaction with the job's counts, the streams it
 * leaves to discard, its next step (`next` once the batch says the step is finished) and a renewed
 * lease: a crash loses the whole batch or nothing, and the batch is counted once. Undefined when
 * the lease was lost (another worker holds the job now).
 */
export async function runErasureBatch(
  store: Store,
  o: { jobId: string; owner: string; leaseMs: number; next: string },
  batch: (tx: Queryable, job: ErasureJob) => Promise<ErasureBatch>,
): Promise<ErasureJob | undefined> {
  return store.transaction(async (tx) => {
    const job = await heldJob(tx, o);
    if (!job) return undefined;
    const done = await batch(tx, job);
    const { rows } = await tx.query<ErasureJob>(
      `UPDATE erasure_jobs SET counts = $2::jsonb, step = $3,
         streams_to_discard = ARRAY(SELECT DISTINCT unnest(streams_to_discard || $4::text[])),
         leased_until = ${leaseFrom('$6', '$5')}
       WHERE id = $1::uuid RETURNING ${COLUMNS}`,
      [
        job.id,
        JSON.stringify(addErasureCounts(job.counts, done.counts)),
        done.finished ? o.next : job.step,
        done.conversationIds,
        o.leaseMs,
        await databaseNow(tx),
      ],
    );
    return rows[0];
  });
}

const heldJob = (tx: Queryable, o: { jobId: string; owner: string }) =>
  lockHeldJob<ErasureJob>(tx, 'erasure_jobs', { ...o, columns: COLUMNS });

/**
 * The last step, in one transaction that holds back every new write of messages, memberships and
 * KAOS sessions (`holdBack`: SHARE locks, for the few milliseconds it takes). Only the person's own data counts
 * (`remains`: what they wrote or own): if any is left (written while the job ran), the job goes back
 * to `firstStep` for another pass, with the kinds found as its `reason`. Otherwise the rows others
 * wrote about them meanwhile (`about`) are removed here, under the same locks, and the job
 * completes, so whatever was stored before `completed_at` is gone and nobody else's writes can
 * send it round again.
 */
export async function finishErasurePass(
  store: Store,
  o: { jobId: string; owner: string; firstStep: string },
  holdBack: (tx: Queryable) => Promise<void>,
  remains: (tx: Queryable, userId: string) => Promise<readonly string[]>,
  about: (tx: Queryable, userId: string) => Promise<ErasureCounts>,
): Promise<ErasureJob | undefined> {
  return store.transaction(async (tx) => {
    await holdBack(tx);
    const job = await heldJob(tx, o);
    if (!job) return undefined;
    const left = await remains(tx, job.user_id);
    if (left.length > 0) {
      const reason = `pass ${job.passes + 1} found the person's own ${left.join(', ')} stored while it ran; another pass takes them`;
      const { rows } = await tx.query<ErasureJob>(
        `UPDATE erasure_jobs SET step = $3, passes = passes + 1, reason = $4
         WHERE id = $1::uuid AND lease_owner = $2 RETURNING ${COLUMNS}`,
        [job.id, o.owner, o.firstStep, reason],
      );
      return rows[0];
    }
    const counts = addErasureCounts(job.counts, await about(tx, job.user_id));
    await tx.query('UPDATE erasure_jobs SET counts = $2::jsonb WHERE id = $1::uuid', [job.id, JSON.stringify(counts)]);
    const ended = await endHeldJob<ErasureJob>(tx, 'erasure_jobs', {
      columns: COLUMNS,
      jobId: job.id,
      owner: o.owner,
      set: 'passes = passes + 1',
    });
    if (ended) await auditErasure(tx, ended);
    return ended;
  });
}

/** Keeps why a try of a job fell short (its runner gave up; the job is taken again, or failed). */
export async function noteErasureReason(
  q: Queryable,
  o: { jobId: string; owner: string; reason: string },
): Promise<void> {
  await q.query('UPDATE erasure_jobs SET reason = $3 WHERE id = $1::uuid AND lease_owner = $2', [
    o.jobId,
    o.owner,
    o.reason,
  ]);
}

/**
 * Whether an erasure of the person was asked for and has not ended: new writes that name them
 * (access granted to them, ownership offered to them) are refused meanwhile, so that nobody else
 * adds to what is being erased.
 */
export async function erasureInProgress(q: Queryable, userId: string): Promise<boolean> {
  const { rows } = await q.query<{ open: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM erasure_jobs WHERE user_id = $1 AND status IN ('pending', 'running')) AS open`,
    [userId],
  );
  return rows[0]!.open;
}

/**
 * The audit log's entry for a job that ended, written with its ending: who asked, for whom, why,
 * and every count as `family.store.kind` (never content).
 */
async function auditErasure(q: Queryable, job: ErasureJob): Promise<void> {
  const counts: Record<string, number> = {};
  for (const [family, stores] of Object.entries(job.counts))
    for (const [store, kinds] of Object.entries(stores))
      for (const [kind, n] of Object.entries(kinds)) counts[`${family}.${store}.${kind}`] = n;
  await recordAudit(q, {
    actorKind: 'system',
    actorId: 'erasure-worker',
    role: null,
    action: job.status === 'completed' ? 'erasureCompleted' : 'erasureFailed',
    target: job.user_id,
    justification: job.justification,
    status: job.status === 'completed' ? 200 : 500,
    params: { erasureId: job.id, requestedBy: job.requested_by, self: job.self, passes: job.passes },
    counts,
  });
}

/**
 * Moves a held job past a step done outside the database, with its counts now (`total`), forgetting the conversations whose response streams it discarded, in one statement.
 */
export async function advanceErasureJob(
  q: Queryable,
  o: { jobId: string; owner: string; leaseMs: number; next: string },
  done: { total: ErasureCounts; discarded: readonly string[] },
): Promise<ErasureJob | undefined> {
  const { rows } = await q.query<ErasureJob>(
    `UPDATE erasure_jobs SET step = $3, leased_until = ${leaseFrom('$7', '$4')},
       counts = $5::jsonb, streams_to_discard = ARRAY(SELECT unnest(streams_to_discard) EXCEPT SELECT unnest($6::text[]))
     WHERE id = $1::uuid AND lease_owner = $2 AND status = 'running' RETURNING ${COLUMNS}`,
    [o.jobId, o.owner, o.next, o.leaseMs, JSON.stringify(done.total), [...done.discarded], await databaseNow(q)],
  );
  return rows[0];
}

/** Ends a held job as failed, with a reason (never content), kept as its `error` and its `reason`. */
export async function failErasureJob(
  q: Queryable,
  o: { jobId: string; owner: string; error: string },
): Promise<ErasureJob | undefined> {
  const ended = await endHeldJob<ErasureJob>(q, 'erasure_jobs', { ...o, columns: COLUMNS, set: 'reason = $4' });
  if (ended) await auditErasure(q, ended);
  return ended;
}

/** Extends the lease of a job `owner` still holds (a step outside the database may outlast one lease); false once it is not theirs. */
export async function renewErasureLease(
  q: Queryable,
  o: { jobId: string; owner: string; leaseMs: number },
): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE erasure_jobs SET leased_until = ${leaseFrom('$4', '$3')}
     WHERE id = $1::uuid AND lease_owner = $2 AND status = 'running'`,
    [o.jobId, o.owner, o.leaseMs, await databaseNow(q)],
  );
  return (rowCount ?? 0) > 0;
}
