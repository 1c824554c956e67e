import type { Store } from '@memstream/store';
import { takeOneEviction, type EvictionRunnerOptions } from './eviction-runner.js';
import type { RunnerLog, SweptWork } from './lease-sweep.js';
import { leaseOwner } from './erasure-worker.js';

/** How eviction runs in this process (EVICTION_* settings). */
export interface EvictionSettings {
  readonly batchSize: number;
  readonly leaseMs: number;
  readonly sweepIntervalMs: number;
  readonly maxAttempts: number;
}

/**
 * The governance worker's evictions: the API writes the job row (POST /v1/admin/evict) and waits
 * on it; the sweep takes it, or one a dead process left (its lease ran out), and runs it to its end.
 */
export function evictionWork(
  deps: { store: Store; discard: (conversationIds: readonly string[]) => Promise<void>; log: RunnerLog },
  settings: EvictionSettings,
): SweptWork {
  const options: EvictionRunnerOptions = {
    store: deps.store,
    owner: leaseOwner(),
    leaseMs: settings.leaseMs,
    batchSize: settings.batchSize,
    maxAttempts: settings.maxAttempts,
    discard: deps.discard,
    log: deps.log,
  };
  return { name: 'eviction', everyMs: settings.sweepIntervalMs, takeOne: () => takeOneEviction(options) };
}
