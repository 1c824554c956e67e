import {
  claimEvictionJob,
  evictBatch,
  evictionProgress,
  findEvictionJob,
  finishEvictionJob,
  settleDiscards,
  type EvictionJob,
  type Store,
} from '@memstream/store';
import { settleFailedTry, type RunnerLog } from './lease-sweep.js';

export interface EvictionRunnerOptions {
  readonly store: Store;
  /** This process's name on the leases it takes (unique per process). */
  readonly owner: string;
  /** How long a job stays this process's without a sign of life; a dead process's job is taken over after it. */
  readonly leaseMs: number;
  readonly batchSize: number;
  /** Removes what lives outside the database for purged conversations (response streams in Redis). */
  readonly discard: (conversationIds: readonly string[]) => Promise<void>;
  /** After a job fails this many tries, it is marked failed instead of being taken again. */
  readonly maxAttempts: number;
  readonly log: RunnerLog;
}

/**
 * Runs one eviction job to its end: the given one, or the oldest open job nobody holds. Batches
 * go until none is left; the progress (0..99, then 100 once completed) is reported after each.
 * Returns the job as it ended, or as it is when another process holds it (undefined: no job).
 */
export async function runEvictionJob(
  o: EvictionRunnerOptions,
  jobId?: string,
  onProgress: (progress: number) => void = () => undefined,
): Promise<EvictionJob | undefined> {
  const job = await claimEvictionJob(o.store, { owner: o.owner, leaseMs: o.leaseMs, jobId });
  if (!job) return jobId === undefined ? undefined : findEvictionJob(o.store, jobId);
  const log = o.log.child({ evictionJobId: job.id });
  try {
    // a crash between a batch's commit and its discards left these to do
    await discardFor(o, job.id, job.streams_to_discard);
    let done = job.done;
    onProgress(evictionProgress({ ...job, done }));
    for (;;) {
      const step = await evictBatch(o.store, {
        jobId: job.id,
        owner: o.owner,
        leaseMs: o.leaseMs,
        batchSize: o.batchSize,
      });
      if (!step.held) {
        log.warn('eviction job taken over by another process; stopping here');
        return findEvictionJob(o.store, job.id);
      }
      await discardFor(o, job.id, step.conversationIds);
      if (step.found === 0) break;
      done += step.purged;
      onProgress(evictionProgress({ ...job, done }));
    }
    const finished = await finishEvictionJob(o.store, { jobId: job.id, owner: o.owner });
    log.info({ counts: finished?.counts, attempts: job.attempts }, 'eviction job completed');
    onProgress(100);
    return finished ?? findEvictionJob(o.store, job.id);
  } catch (err) {
    return settleFailedTry({
      what: 'eviction',
      err,
      attempts: job.attempts,
      maxAttempts: o.maxAttempts,
      log,
      failForGood: () =>
        finishEvictionJob(o.store, { jobId: job.id, owner: o.owner, error: 'eviction failed; see the server log' }),
    });
  }
}

async function discardFor(o: EvictionRunnerOptions, jobId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await o.discard(ids);
  await settleDiscards(o.store, jobId, ids);
}

/**
 * One turn of the sweep: takes over the oldest open job nobody holds (one an admin's request
 * made, one of a process that died, one whose runner gave up a try) and runs it; false when there
 * was none.
 */
export async function takeOneEviction(o: EvictionRunnerOptions): Promise<boolean> {
  return (await runEvictionJob(o)) !== undefined;
}

/** Runs the open jobs nobody holds until none is left (the store's tests; the worker sweeps with takeOneEviction). */
export async function sweepEvictionJobs(o: EvictionRunnerOptions, signal?: AbortSignal): Promise<number> {
  let ran = 0;
  while (!signal?.aborted && (await takeOneEviction(o))) ran += 1;
  return ran;
}
