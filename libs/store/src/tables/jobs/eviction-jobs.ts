import { databaseNow } from '../../database-clock.js';
import type { Queryable } from '../../store.js';
import type { EvictableResource } from '../../participant/participant.js';
import { NO_PURGE, type PurgeCounts } from '../../participant/purge-counts.js';
import { endHeldJob, leaseFrom, leaseJob, lockHeldJob, lockOpenJob } from './job-row-leases.js';

/**
 * The eviction of soft-deleted data as jobs (memory-service's eviction API): this file keeps the
 * job queue; lifecycle/evict.ts runs the jobs' batches over the tables' evict parts.
 */
export { EVICTABLE_RESOURCES, type EvictableResource } from '../../participant/participant.js';
export type EvictionStatus = 'pending' | 'running' | 'completed' | 'failed';

export interface EvictionJob {
  readonly id: string;
  readonly status: EvictionStatus;
  readonly retention_period: string;
  readonly cutoff: Date;
  readonly resource_types: EvictableResource[];
  readonly requested_by: string;
  readonly justification: string | null;
  readonly total: number;
  readonly done: number;
  readonly counts: PurgeCounts;
  readonly streams_to_discard: string[];
  readonly attempts: number;
  readonly lease_owner: string | null;
  readonly error: string | null;
  readonly created_at: Date;
  readonly started_at: Date | null;
  readonly completed_at: Date | null;
}

const COLUMNS = `id::text AS id, status, retention_period, cutoff, resource_types, requested_by, justification, total, done,
  counts, streams_to_discard, attempts, lease_owner, error, created_at, started_at, completed_at`;

export interface NewEvictionJob {
  readonly retentionPeriod: string;
  readonly cutoff: Date;
  readonly resourceTypes: readonly EvictableResource[];
  readonly requestedBy: string;
  readonly justification?: string | null | undefined;
}

export async function createEvictionJob(q: Queryable, job: NewEvictionJob): Promise<EvictionJob> {
  const { rows } = await q.query<EvictionJob>(
    `INSERT INTO eviction_jobs (retention_period, cutoff, resource_types, requested_by, justification, counts)
     VALUES ($1, $2, $3::text[], $4, $5, $6::jsonb) RETURNING ${COLUMNS}`,
    [
      job.retentionPeriod,
      job.cutoff,
      [...new Set(job.resourceTypes)],
      job.requestedBy,
      job.justification ?? null,
      JSON.stringify(NO_PURGE),
    ],
  );
  return rows[0]!;
}

/** The job, or undefined for an id that is no job (or no uuid at all). */
export async function findEvictionJob(q: Queryable, id: string): Promise<EvictionJob | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  const { rows } = await q.query<EvictionJob>(`SELECT ${COLUMNS} FROM eviction_jobs WHERE id = $1::uuid`, [id]);
  return rows[0];
}

/**
 * Locks the job to take, for its claim: the given one, or else the oldest open job nobody holds
 * (never started, or its holder's lease ran out because its process died). Undefined: none.
 */
export function openEvictionJob(tx: Queryable, jobId?: string | undefined): Promise<EvictionJob | undefined> {
  return lockOpenJob<EvictionJob>(tx, 'eviction_jobs', { columns: COLUMNS, oldestBy: 'created_at', jobId });
}

/** Leases an open job (openEvictionJob) to `owner` for `leaseMs`, with what it has to evict in all. */
export function leaseEvictionJob(
  tx: Queryable,
  job: EvictionJob,
  o: { owner: string; leaseMs: number; total: number },
): Promise<EvictionJob | undefined> {
  return leaseJob<EvictionJob>(tx, 'eviction_jobs', {
    columns: COLUMNS,
    jobId: job.id,
    owner: o.owner,
    leaseMs: o.leaseMs,
    set: 'total = $4',
    params: [o.total],
  });
}

/** The job `owner` holds, locked for a batch; undefined once the lease was lost. */
export function holdEvictionJob(tx: Queryable, o: { jobId: string; owner: string }): Promise<EvictionJob | undefined> {
  return lockHeldJob<EvictionJob>(tx, 'eviction_jobs', { ...o, columns: COLUMNS });
}

/** Records a batch of a held job: what it evicted, its counts, the streams to discard, a renewed lease. */
export async function recordEvictionBatch(
  tx: Queryable,
  job: EvictionJob,
  o: { leaseMs: number; purged: number; counts: PurgeCounts; conversationIds: readonly string[] },
): Promise<void> {
  await tx.query(
    `UPDATE eviction_jobs SET done = done + $2, counts = $3::jsonb,
       streams_to_discard = ARRAY(SELECT DISTINCT unnest(streams_to_discard || $4::text[])),
       leased_until = ${leaseFrom('$6', '$5')}
     WHERE id = $1::uuid`,
    [job.id, o.purged, JSON.stringify(o.counts), [...o.conversationIds], o.leaseMs, await databaseNow(tx)],
  );
}

/** Forgets the conversations whose outside copies were discarded. */
export async function settleDiscards(q: Queryable, jobId: string, conversationIds: readonly string[]): Promise<void> {
  if (conversationIds.length === 0) return;
  await q.query(
    `UPDATE eviction_jobs SET streams_to_discard = ARRAY(SELECT unnest(streams_to_discard) EXCEPT SELECT unnest($2::text[]))
     WHERE id = $1::uuid`,
    [jobId, [...conversationIds]],
  );
}

/** Ends a job its owner holds: completed, or failed with a reason (never content). */
export async function finishEvictionJob(
  q: Queryable,
  o: { jobId: string; owner: string; error?: string | undefined },
): Promise<EvictionJob | undefined> {
  return endHeldJob<EvictionJob>(q, 'eviction_jobs', { ...o, columns: COLUMNS });
}

/** 0 to 100; 100 only once the job is completed. */
export function evictionProgress(job: Pick<EvictionJob, 'status' | 'total' | 'done'>): number {
  if (job.status === 'completed') return 100;
  if (job.total <= 0) return 0;
  return Math.min(99, Math.floor((job.done * 100) / job.total));
}
