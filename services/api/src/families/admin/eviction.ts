import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { ResponseStreams } from '@memstream/fanout';
import { startPeriodicJob } from '@memstream/runtime';
import {
  evictionProgress,
  runEvictionJob,
  sweepEvictionJobs,
  type EvictionRunnerOptions,
  type RunnerLog,
  type Store,
} from '@memstream/store';

/** How often a request looks again at its job while another runner holds it. */
const WAIT_POLL_MS = 200;

/** How eviction runs in this process (EVICTION_* settings). */
export interface EvictionSettings {
  readonly batchSize: number;
  readonly leaseMs: number;
  readonly sweepIntervalMs: number;
  readonly maxAttempts: number;
}

export interface Evictor {
  /** Runs the job here to its end, reporting progress; what it ended as. */
  run(jobId: string, onProgress?: (progress: number) => void): ReturnType<typeof runEvictionJob>;
  /** Runs the job in the background (`?async=true`); a failure is logged and the sweep retries it. */
  start(jobId: string): void;
  close(): Promise<void>;
}

/**
 * The process's eviction worker: runs the jobs its requests make, and sweeps for jobs left open by
 * a process that died (their lease ran out), in every replica; a job's lease keeps it to one.
 */
export function createEvictor(
  deps: { store: Store; responses: ResponseStreams | undefined; log: RunnerLog },
  settings: EvictionSettings,
): Evictor {
  const options: EvictionRunnerOptions = {
    store: deps.store,
    owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    leaseMs: settings.leaseMs,
    batchSize: settings.batchSize,
    maxAttempts: settings.maxAttempts,
    discard: async (ids) => deps.responses?.discard(ids),
    log: deps.log,
  };
  const sweep = startPeriodicJob(
    { name: 'eviction sweep', everyMs: settings.sweepIntervalMs, log: deps.log },
    // a job that fails is logged by its runner, and its lease lets the next sweep take it again
    (signal) => sweepEvictionJobs(options, signal),
  );
  const background = new Set<Promise<unknown>>();
  return {
    async run(jobId, onProgress) {
      // The sweep (here or in another replica) may take the job between its creation and this
      // claim; the caller still waits for its end, taking the job over if that holder dies.
      for (;;) {
        const job = await runEvictionJob(options, jobId, onProgress);
        if (job === undefined || job.status === 'completed' || job.status === 'failed') return job;
        onProgress?.(evictionProgress(job));
        await delay(WAIT_POLL_MS);
      }
    },
    start(jobId) {
      const running = runEvictionJob(options, jobId)
        .catch((err: unknown) => deps.log.error({ err, evictionJobId: jobId }, 'eviction job failed'))
        .finally(() => background.delete(running));
      background.add(running);
    },
    async close() {
      await sweep.stop();
      // a job cut short here is taken over after its lease by this or another replica
      await Promise.allSettled([...background]);
    },
  };
}
