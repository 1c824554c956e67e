import { databaseNow } from '../database-clock.js';
import type { Queryable, Store } from '../store.js';
import { addPurgeCounts, NO_PURGE, purgeConversationGroups, type PurgeCounts } from './purge-conversations.js';
import { endHeldJob, leaseFrom, leaseJob, lockHeldJob, lockOpenJob } from './job-row-leases.js';

/** memory-service's resource types: groups soft-deleted, and memberships removed, before the cutoff. */
export const EVICTABLE_RESOURCES = ['conversation_groups', 'conversation_memberships'] as const;
export type EvictableResource = (typeof EVICTABLE_RESOURCES)[number];
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

/**
 * Groups whose every conversation was soft-deleted before the cutoff and has taken no message
 * since (a family without soft deletion of its own, EverMemOS or ARK, keeps storing what is sent
 * to a group an admin deleted: such a group is in use again and is not evicted).
 */
function evictableGroupsSql(cutoff: string, limit?: string): string {
  return `SELECT DISTINCT COALESCE(c.group_id, c.id) AS group_id FROM conversations c
    WHERE c.deleted_at < ${cutoff}
      AND NOT EXISTS (SELECT 1 FROM conversations o
                       WHERE (o.id = COALESCE(c.group_id, c.id) OR o.group_id = COALESCE(c.group_id, c.id))
                         AND (o.deleted_at IS NULL OR o.deleted_at >= ${cutoff}
                              OR EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = o.id AND m.stored_at > o.deleted_at)))
    ${limit === undefined ? '' : `ORDER BY 1 LIMIT ${limit}`}`;
}

/** What the job has to evict when it starts, for its progress: groups and removed memberships, one each. */
async function countEvictable(q: Queryable, job: EvictionJob): Promise<number> {
  let total = 0;
  if (job.resource_types.includes('conversation_groups')) {
    const { rows } = await q.query<{ n: string }>(`SELECT count(*) AS n FROM (${evictableGroupsSql('$1')}) g`, [
      job.cutoff,
    ]);
    total += Number(rows[0]!.n);
  }
  if (job.resource_types.includes('conversation_memberships')) {
    const { rows } = await q.query<{ n: string }>(
      'SELECT count(*) AS n FROM conversation_membership_removals WHERE removed_at < $1',
      [job.cutoff],
    );
    total += Number(rows[0]!.n);
  }
  return total;
}

/** Hard-deletes up to `limit` memberships removed before the cutoff; how many. */
async function evictMembershipRemovals(q: Queryable, cutoff: Date, limit: number): Promise<number> {
  const { rowCount } = await q.query(
    `DELETE FROM conversation_membership_removals WHERE (group_id, id) IN (
       SELECT group_id, id FROM conversation_membership_removals WHERE removed_at < $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [cutoff, limit],
  );
  return rowCount ?? 0;
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
    let groups: string[] = [];
    if (job.resource_types.includes('conversation_groups')) {
      const found = await tx.query<{ group_id: string }>(evictableGroupsSql('$1', '$2'), [job.cutoff, o.batchSize]);
      groups = found.rows.map((r) => r.group_id);
    }
    const purged = await purgeConversationGroups(tx, groups, { deletedBefore: job.cutoff });
    // the batch's room left by groups goes to removed memberships: groups first, then those
    const room = o.batchSize - groups.length;
    const removals =
      room > 0 && job.resource_types.includes('conversation_memberships')
        ? await evictMembershipRemovals(tx, job.cutoff, room)
        : 0;
    const counts = addPurgeCounts(addPurgeCounts(job.counts, purged.counts), { membershipRemovals: removals });
    await tx.query(
      `UPDATE eviction_jobs SET done = done + $2, counts = $3::jsonb,
         streams_to_discard = ARRAY(SELECT DISTINCT unnest(streams_to_discard || $4::text[])),
         leased_until = ${leaseFrom('$6', '$5')}
       WHERE id = $1::uuid`,
      [
        job.id,
        purged.counts.groups + removals,
        JSON.stringify(counts),
        purged.conversationIds,
        o.leaseMs,
        await databaseNow(tx),
      ],
    );
    return {
      held: true,
      found: groups.length + removals,
      purged: purged.counts.groups + removals,
      conversationIds: purged.conversationIds,
    };
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
