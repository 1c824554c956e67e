import { setTimeout as delay } from 'node:timers/promises';
import { evictionProgress, findEvictionJob, type EvictionJob, type Store } from '@memstream/store';

/** How often a request looks again at its job while the governance worker runs it. */
const WAIT_POLL_MS = 200;

/**
 * Waits for an eviction job to end, reporting its progress as it changes. The API runs no jobs:
 * the governance worker takes the job (`wake`, where it runs in this process, starts its sweep at
 * once), and the row says how far it got. Undefined for a job that is gone.
 */
export async function awaitEviction(
  store: Store,
  jobId: string,
  o: { onProgress?: (progress: number) => void; wake?: (() => void) | undefined } = {},
): Promise<EvictionJob | undefined> {
  o.wake?.();
  for (;;) {
    const job = await findEvictionJob(store, jobId);
    if (job === undefined) return undefined;
    o.onProgress?.(evictionProgress(job));
    if (job.status === 'completed' || job.status === 'failed') return job;
    await delay(WAIT_POLL_MS);
  }
}
