import {
  addCount,
  addErasureCounts,
  advanceErasureJob,
  claimErasureJob,
  eraseKeyedRecords,
  eraseOwnedConversations,
  eraseSentMessages,
  eraseWrittenAbout,
  failErasureJob,
  findErasureJob,
  finishErasurePass,
  holdBackPersonWrites,
  FIRST_ERASURE_STEP,
  noErasureCounts,
  noteErasureReason,
  ownDataRemaining,
  renewErasureLease,
  runErasureBatch,
  type ErasureBatch,
  type ErasureCounts,
  type ErasureJob,
  type Queryable,
  type Store,
} from '@memstream/store';
import { keepingLease, settleFailedTry, type RunnerLog } from './lease-sweep.js';

/**
 * One step of an erasure: batches in the database, each committed with the job's counts and
 * place (`batch` says when the step is finished), or work outside it, done whole and then the
 * job moves on (it must be safe to do twice: a crash after it and before the move redoes it).
 */
export type ErasureStep =
  | {
      readonly name: string;
      readonly batch: (tx: Queryable, job: ErasureJob, batchSize: number) => Promise<ErasureBatch>;
    }
  | { readonly name: string; readonly outside: (job: ErasureJob) => Promise<OutsideWork> };

/** What a step outside the database did: its counts, and the response streams it discarded. */
export interface OutsideWork {
  readonly counts: ErasureCounts;
  readonly discarded?: readonly string[];
}

export interface ErasureRunnerOptions {
  readonly store: Store;
  /** This process's name on the leases it takes (unique per process). */
  readonly owner: string;
  /** How long a job stays this process's without a sign of life; a dead process's job is taken over after it. */
  readonly leaseMs: number;
  readonly batchSize: number;
  /** Removes the response streams (Redis, or this process's memory) of removed conversations. */
  readonly discard: (conversationIds: readonly string[]) => Promise<void>;
  /**
   * Removes the person's copies from the transport (every topic and dead-letter topic), with what
   * it removed as counts (the `kafka` store). Unset, the step does nothing: only for a store
   * without a bus (the store's own tests); every process that runs erasures sets it.
   */
  readonly eraseTransport?: (userId: string) => Promise<ErasureCounts>;
  /** After a job fails this many tries, it is marked failed instead of being taken again. */
  readonly maxAttempts: number;
  /**
   * Passes after which a try gives up when the person's own data keeps being stored (their own
   * writes, or an agent's for them) instead of holding the job forever; the reason says so.
   */
  readonly maxPasses?: number;
  /** Once aborted, the job stops before its next batch (its lease runs out and it is taken over). */
  readonly signal?: AbortSignal;
  readonly log: RunnerLog;
}

/**
 * The steps, in order. The database steps remove what is the person's whole first, then their
 * words in other people's conversations, then what names them; the response streams of what was
 * removed whole are discarded; then the transport's copies go, after the rows, so that nothing
 * consumed later can bring them back; the last pass completes the job only if nothing of them is left.
 */
export function erasureSteps(o: Pick<ErasureRunnerOptions, 'discard' | 'eraseTransport'>): readonly ErasureStep[] {
  return [
    { name: FIRST_ERASURE_STEP, batch: (tx, job, n) => eraseOwnedConversations(tx, job.user_id, n) },
    { name: 'sent-messages', batch: (tx, job, n) => eraseSentMessages(tx, job.user_id, n) },
    { name: 'keyed-records', batch: (tx, job) => eraseKeyedRecords(tx, job.user_id) },
    { name: 'response-streams', outside: (job) => discardStreams(o, job) },
    {
      name: 'transport-copies',
      outside: async (job) => ({ counts: (await o.eraseTransport?.(job.user_id)) ?? noErasureCounts() }),
    },
  ];
}

const FINAL_STEP = 'final-check';
const DEADLOCK = '40P01';

/**
 * Runs one erasure job to its end: the given one, or the oldest open job nobody holds. Returns the
 * job as it ended, or as it is when another process holds it (undefined: no such job).
 */
export async function runErasureJob(
  o: ErasureRunnerOptions,
  jobId?: string,
  steps: readonly ErasureStep[] = erasureSteps(o),
): Promise<ErasureJob | undefined> {
  const claimed = await claimErasureJob(o.store, { owner: o.owner, leaseMs: o.leaseMs, jobId });
  if (!claimed) return jobId === undefined ? undefined : findErasureJob(o.store, jobId);
  let job: ErasureJob = claimed;
  const log = o.log.child({ erasureJobId: job.id });
  const lost = async () => {
    log.warn('erasure job taken over by another process; stopping here');
    return findErasureJob(o.store, job.id);
  };
  try {
    for (;;) {
      if (o.signal?.aborted) {
        log.info({ step: job.step }, 'erasure job left for another worker: this one is stopping');
        return job;
      }
      const at = steps.findIndex((s) => s.name === job.step);
      const held = { jobId: job.id, owner: o.owner, leaseMs: o.leaseMs };
      if (job.step === FINAL_STEP || at < 0) {
        const ended = await unlessDeadlocked(() =>
          finishErasurePass(
            o.store,
            { ...held, firstStep: steps[0]!.name },
            holdBackPersonWrites,
            ownDataRemaining,
            eraseWrittenAbout,
          ),
        );
        if (ended === 'deadlock') continue;
        if (!ended) return lost();
        if (ended.status === 'completed') {
          log.info({ counts: ended.counts, passes: ended.passes, attempts: ended.attempts }, 'erasure job completed');
          return ended;
        }
        if (ended.passes >= (o.maxPasses ?? 20))
          throw new ErasureFellShort(
            `${ended.passes} passes each found the person's own data stored while they ran (last: ${ended.reason})`,
          );
        job = ended;
        continue;
      }
      const step = steps[at]!;
      const next = steps[at + 1]?.name ?? FINAL_STEP;
      let moved: ErasureJob | undefined;
      if ('batch' in step) {
        const batched = await unlessDeadlocked(() =>
          runErasureBatch(o.store, { ...held, next }, (tx, j) => step.batch(tx, j, o.batchSize)),
        );
        if (batched === 'deadlock') continue;
        moved = batched;
      } else {
        const done = await keepingLease(
          () => renewErasureLease(o.store, held),
          o.leaseMs,
          log,
          () => step.outside(job),
        );
        moved = await advanceErasureJob(
          o.store,
          { ...held, next },
          { total: addErasureCounts(job.counts, done.counts), discarded: done.discarded ?? [] },
        );
      }
      if (!moved) return lost();
      job = moved;
    }
  } catch (err) {
    const reason = reasonOf(err, job.step);
    return settleFailedTry({
      what: 'erasure',
      err,
      attempts: job.attempts,
      maxAttempts: o.maxAttempts,
      log,
      failForGood: () => failErasureJob(o.store, { jobId: job.id, owner: o.owner, error: reason }),
      noteRetry: () => noteErasureReason(o.store, { jobId: job.id, owner: o.owner, reason }),
    });
  }
}

/** A try that stopped for a reason the receipt may show as it is (it names kinds and counts, never content). */
class ErasureFellShort extends Error {}

/** What the receipt says of a try that stopped: its own words for a known cause, else the step and the error's code. */
function reasonOf(err: unknown, step: string): string {
  if (err instanceof ErasureFellShort) return err.message;
  const code = (err as { code?: unknown }).code;
  return `step ${step} failed${typeof code === 'string' ? ` (${code})` : ''}; see the server log`;
}

/**
 * The work, or 'deadlock' when PostgreSQL chose it to break a lock cycle with a writer (the final
 * pass's table locks, or a batch meeting the indexer on the same rows): its transaction rolled back
 * whole, and the caller does it again at once instead of waiting for its lease to run out.
 */
async function unlessDeadlocked<T>(work: () => Promise<T>): Promise<T | 'deadlock'> {
  try {
    return await work();
  } catch (err) {
    if ((err as { code?: unknown }).code === DEADLOCK) return 'deadlock';
    throw err;
  }
}

/**
 * The memory-service response streams of the conversations removed whole (a crash before the job
 * moved on discards them again: deleting a stream twice is harmless, and it is counted once).
 */
async function discardStreams(o: Pick<ErasureRunnerOptions, 'discard'>, job: ErasureJob): Promise<OutsideWork> {
  const ids = job.streams_to_discard;
  const counts = noErasureCounts();
  if (ids.length > 0) await o.discard(ids);
  addCount(counts, 'memory-service', 'redis', 'responseStreams', ids.length);
  return { counts, discarded: ids };
}

/**
 * One turn of the sweep: takes over the oldest open job nobody holds (one whose event no worker
 * has reached yet, one of a process that died, one whose runner gave up a try) and runs it; false
 * when there was none.
 */
export async function takeOneErasure(o: ErasureRunnerOptions): Promise<boolean> {
  return (await runErasureJob(o)) !== undefined;
}
