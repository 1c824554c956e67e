import { databaseNow } from '../../database-clock.js';
import type { Queryable, Store } from '../../store.js';
import type { EvictableResource, EvictGroups } from '../../lifecycle/participant.js';
import { EVICT_ORDER, PURGE_ORDER } from '../../lifecycle/registry.js';
import {
  addPurgeCounts,
  NO_PURGE,
  purgeConversationGroups,
  type PurgeCounts,
} from '../../lifecycle/purge-conversations.js';
import { endHeldJob, leaseFrom, leaseJob, lockHeldJob, lockOpenJob } from './job-row-leases.js';

/**
 * The eviction of soft-deleted data as jobs (memory-service's eviction API): what each resource
 * type takes, and how, is the tables' own (the evict part of each lifecycle participant); this file
 * keeps the job queue and runs the parts, in EVICT_ORDER.
 */
export { EVICTABLE_RESOURCES, type EvictableResource } from '../../lifecycle/participant.js';
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
 * Takes a job for `owner` for `leaseMs`: the given one, or else the oldest open job nobody holds
 * (never started, or its holder's lease ran out because its process died). Undefined when there is
 * none to take. On its first start the job counts what there is to evict, for its progress.
 */
export async function claimEvictionJob(
  store: Store,
  o: { owner: string; leaseMs: number; jobId?: string | undefined },
): Promise<EvictionJob | undefined> {
  return store.transaction(async (tx) => {
    const job = await lockOpenJob<EvictionJob>(tx, 'eviction_jobs', {
      columns: COLUMNS,
      oldestBy: 'created_at',
      jobId: o.jobId,
    });
    if (!job) return undefined;
    const total = job.started_at === null ? await countEvictable(tx, job) : job.total;
    return leaseJob<EvictionJob>(tx, 'eviction_jobs', {
      columns: COLUMNS,
      jobId: job.id,
      owner: o.owner,
      leaseMs: o.leaseMs,
      set: 'total = $4',
      params: [total],
    });
  });
}

/** The parts of the eviction a job asks for, in the order a batch takes them. */
const partsOf = (job: EvictionJob) => EVICT_ORDER.filter((p) => job.resource_types.includes(p.evict.resource));

/**
 * True (SQL) for a deleted conversation that stored a row after its deletion: in any table whose
 * purge part keys its rows by conversation and says when each was stored.
 */
function writtenSince(conversation: string, deletedAt: string, group: string): string {
  const checks = PURGE_ORDER.flatMap(({ table, purge }) =>
    purge.storedAt === undefined
      ? []
      : [
          `EXISTS (SELECT 1 FROM ${table} w WHERE w.${purge.storedAt.group} = ${group}
                    AND w.${purge.column} = ${conversation} AND w.${purge.storedAt.column} > ${deletedAt})`,
        ],
  );
  return checks.length === 0 ? 'false' : `(${checks.join(' OR ')})`;
}

const groupsSql = (goes: EvictGroups, cutoff: string, limit?: string) => goes.groups({ cutoff, limit, writtenSince });

/** What the job has to evict when it starts, for its progress: each group and each row, one. */
async function countEvictable(q: Queryable, job: EvictionJob): Promise<number> {
  let total = 0;
  for (const { table, evict } of partsOf(job)) {
    const sql =
      'groups' in evict.goes
        ? `SELECT count(*) AS n FROM (${groupsSql(evict.goes, '$1')}) g`
        : `SELECT count(*) AS n FROM ${table} WHERE ${evict.goes.agedBy} < $1`;
    const { rows } = await q.query<{ n: string }>(sql, [job.cutoff]);
    total += Number(rows[0]!.n);
  }
  return total;
}

export interface EvictionStep {
  /** False when the lease was lost (another worker holds the job now): stop. */
  readonly held: boolean;
  /** Groups and removed memberships found to evict by this step; 0 means nothing is left. */
  readonly found: number;
  /** Of those, what this step evicted (another job may have purged the rest first). */
  readonly purged: number;
  /** Conversations purged whose response streams are to be discarded (see settleDiscards). */
  readonly conversationIds: readonly string[];
}

/**
 * Evicts one batch for a job `owner` holds, in one transaction with the job's counts and progress
 * and a renewed lease: a crash loses the whole batch or nothing, and the batch is counted once.
 */
export async function evictBatch(
  store: Store,
  o: { jobId: string; owner: string; leaseMs: number; batchSize: number },
): Promise<EvictionStep> {
  return store.transaction(async (tx) => {
    const job = await lockHeldJob<EvictionJob>(tx, 'eviction_jobs', { ...o, columns: COLUMNS });
    if (!job) return { held: false, found: 0, purged: 0, conversationIds: [] };
    // each part in order, in the room the parts before it left in the batch: groups, then rows
    let counts = addPurgeCounts(job.counts, {});
    let room = o.batchSize;
    let found = 0;
    let purged = 0;
    let conversationIds: readonly string[] = [];
    for (const { evict } of partsOf(job)) {
      if (room <= 0) break;
      if ('groups' in evict.goes) {
        const due = await tx.query<{ group_id: string }>(groupsSql(evict.goes, '$1', '$2'), [job.cutoff, room]);
        const groups = due.rows.map((r) => r.group_id);
        const result = await purgeConversationGroups(tx, groups, { deletedBefore: job.cutoff });
        counts = addPurgeCounts(counts, result.counts);
        conversationIds = [...conversationIds, ...result.conversationIds];
        found += groups.length;
        purged += result.counts.groups;
        room -= groups.length;
      } else {
        const n = await evict.goes.take(tx, job.cutoff, room);
        counts = addPurgeCounts(counts, { [evict.goes.counts]: n });
        found += n;
        purged += n;
        room -= n;
      }
    }
    await tx.query(
      `UPDATE eviction_jobs SET done = done + $2, counts = $3::jsonb,
         streams_to_discard = ARRAY(SELECT DISTINCT unnest(streams_to_discard || $4::text[])),
         leased_until = ${leaseFrom('$6', '$5')}
       WHERE id = $1::uuid`,
      [job.id, purged, JSON.stringify(counts), conversationIds, o.leaseMs, await databaseNow(tx)],
    );
    return { held: true, found, purged, conversationIds };
  });
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
