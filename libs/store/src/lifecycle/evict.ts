import type { Queryable, Store } from '../store.js';
import type { EvictGroups } from '../participant/participant.js';
import { addPurgeCounts } from '../participant/purge-counts.js';
import {
  type EvictionJob,
  holdEvictionJob,
  leaseEvictionJob,
  openEvictionJob,
  recordEvictionBatch,
} from '../tables/jobs/eviction-jobs.js';
import { purgeConversationGroups } from './purge-conversations.js';
import { EVICT_ORDER, PURGE_ORDER } from './registry.js';

/**
 * The eviction of soft-deleted data, a job's batches at a time (memory-service's eviction API):
 * what each resource type takes, and how, is the tables' own (the evict part of each lifecycle
 * participant); this loop runs the parts a job asks for, in EVICT_ORDER, and keeps the job's
 * queue row (tables/jobs/eviction-jobs.ts) in the same transaction as each batch.
 */

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
    const job = await openEvictionJob(tx, o.jobId);
    if (!job) return undefined;
    const total = job.started_at === null ? await countEvictable(tx, job) : job.total;
    return leaseEvictionJob(tx, job, { owner: o.owner, leaseMs: o.leaseMs, total });
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
    const job = await holdEvictionJob(tx, o);
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
    await recordEvictionBatch(tx, job, { leaseMs: o.leaseMs, purged, counts, conversationIds });
    return { held: true, found, purged, conversationIds };
  });
}
