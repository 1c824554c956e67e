import { RETENTION_PERIOD_PATTERN } from '@memstream/schemas';
import {
  addRetentionCounts,
  claimJobLease,
  createEvictionJob,
  cutoffOf,
  noRetentionCounts,
  recordAudit,
  releaseJobLease,
  renewJobLease,
  retentionOverrides,
  retentionPasses,
  type Queryable,
  type RetentionBatch,
  type RetentionCounts,
  type RetentionKind,
  type Store,
} from '@memstream/store';
import type { RunnerLog } from './lease-sweep.js';
import { runEvictionJob } from './eviction-runner.js';

/** How long each kind lives, as ISO 8601 periods; a kind left out is kept forever. */
export type RetentionPeriods = Partial<Record<RetentionKind, string>>;

export interface RetentionRunnerOptions {
  readonly store: Store;
  readonly periods: RetentionPeriods;
  /** This process's name on the lease (unique per process). */
  readonly owner: string;
  /** How long the run stays this process's without a sign of life (a batch); then another may run it. */
  readonly leaseMs: number;
  /** A run completed less than this long ago is not run again by another replica. */
  readonly minGapMs: number;
  readonly batchSize: number;
  /** Removes the response streams (Redis, or this process's memory) of conversations removed whole. */
  readonly discard: (conversationIds: readonly string[]) => Promise<void>;
  readonly log: RunnerLog;
  readonly now?: () => Date;
  /** Once aborted, the run stops before its next batch (the next run starts again). */
  readonly signal?: AbortSignal;
}

export interface RetentionRun {
  /** Per kind, what its passes removed (with their cascade). */
  readonly byKind: Record<RetentionKind, RetentionCounts>;
  readonly total: RetentionCounts;
  readonly startedAt: Date;
}

const LEASE = 'retention';

/**
 * One retention run: for each kind with a period, and for each conversation whose metadata
 * shortens it, removes what is older, a batch per transaction; then records the run in the audit
 * log (counts only), a failed one too. Undefined, with no run and no entry, when no period is set
 * and no conversation asks for one, or when another replica holds the run or made it lately. A run
 * cut short (a crash, a stop) leaves what it removed removed; the next run goes on from there.
 */
export async function runRetention(o: RetentionRunnerOptions): Promise<RetentionRun | undefined> {
  const held = { name: LEASE, owner: o.owner, leaseMs: o.leaseMs };
  const overrides = (await retentionOverrides(o.store)).filter((v) => RETENTION_PERIOD_PATTERN.test(v));
  if (Object.keys(o.periods).length === 0 && overrides.length === 0) return undefined;
  if (!(await claimJobLease(o.store, { ...held, minGapMs: o.minGapMs }))) return undefined;
  const startedAt = (o.now ?? (() => new Date()))();
  const byKind = Object.fromEntries(
    (['messages', 'kaosEvents', 'memories', 'summaries', 'arkSessions', 'deleted'] as const).map((k) => [
      k,
      noRetentionCounts(),
    ]),
  ) as Record<RetentionKind, RetentionCounts>;
  let completed = false;
  let failure: unknown;
  try {
    // each table's retain part, in the order of their kinds (RETAIN_STAGES); soft deletion, the admin's, after them
    for (const pass of retentionPasses({ periods: o.periods, overrides, now: startedAt, batchSize: o.batchSize }))
      byKind[pass.kind] = addRetentionCounts(byKind[pass.kind], await untilDone(o, held, pass.batch));
    if (o.periods.deleted !== undefined && !o.signal?.aborted) byKind.deleted = await evictDeleted(o, startedAt);
    completed = !o.signal?.aborted;
  } catch (err) {
    failure = err;
  } finally {
    await releaseJobLease(o.store, { ...held, completed });
  }
  const total = Object.values(byKind).reduce(addRetentionCounts, noRetentionCounts());
  await recordAudit(o.store, {
    actorKind: 'system',
    actorId: 'retention',
    role: null,
    action: 'retention.run',
    // 500: it failed (the log says why; the counts are of the passes it finished); 503: it was stopped
    status: completed ? 200 : failure === undefined ? 503 : 500,
    params: { ...o.periods, startedAt: startedAt.toISOString(), completed },
    counts: flatCounts(byKind),
  });
  if (failure !== undefined) throw failure;
  o.log.info({ counts: total, completed }, 'retention run ended');
  return { byKind, total, startedAt };
}

/** Runs batches until one says it is finished, each in its own transaction with the lease renewed. */
async function untilDone(
  o: RetentionRunnerOptions,
  held: { name: string; owner: string; leaseMs: number },
  batch: (tx: Queryable, after: string | undefined) => Promise<RetentionBatch>,
): Promise<RetentionCounts> {
  let counts = noRetentionCounts();
  let after: string | undefined;
  for (;;) {
    if (o.signal?.aborted) return counts;
    const done = await o.store.transaction(async (tx) => {
      if (!(await renewJobLease(tx, held))) throw new Error('the retention lease was taken over by another process');
      return batch(tx, after);
    });
    after = done.after;
    counts = addRetentionCounts(counts, done.counts);
    // after the commit: a crash before this leaves streams of conversations that no longer exist,
    // which nothing can read (their access check finds no conversation) and Redis expires
    if (done.conversationIds.length > 0) await o.discard(done.conversationIds);
    if (done.finished) return counts;
  }
}

/**
 * Soft-deleted data past RETENTION_DELETED: an eviction job like memory-service's admin makes
 * (groups and removed memberships), run here to its end, so both remove the same way.
 */
async function evictDeleted(o: RetentionRunnerOptions, now: Date): Promise<RetentionCounts> {
  const period = o.periods.deleted!;
  const job = await createEvictionJob(o.store, {
    retentionPeriod: period,
    cutoff: cutoffOf(period, now),
    resourceTypes: ['conversation_groups', 'conversation_memberships'],
    requestedBy: 'system:retention',
    justification: 'RETENTION_DELETED',
  });
  const ended = await runEvictionJob({ ...o, maxAttempts: 3 }, job.id);
  const c = ended?.counts;
  return addRetentionCounts(noRetentionCounts(), {
    conversationGroups: c?.groups ?? 0,
    messages: c?.messages ?? 0,
    searchRows: c?.searchItems ?? 0,
    episodes: c?.episodes ?? 0,
    episodicMemories: c?.episodicMemories ?? 0,
    summaries: c?.summaries ?? 0,
    kaosEvents: c?.kaosEvents ?? 0,
    arkSessions: c?.arkSessions ?? 0,
  });
}

/** The audit row's counts: `<kind>.<count>`, the non-zero ones. */
function flatCounts(byKind: Record<RetentionKind, RetentionCounts>): Record<string, number> {
  const flat: Record<string, number> = {};
  for (const [kind, counts] of Object.entries(byKind))
    for (const [name, n] of Object.entries(counts)) if (n > 0) flat[`${kind}.${name}`] = n;
  return flat;
}
