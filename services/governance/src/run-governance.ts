import { retryPolicyOf, subscribeWiring, type Bus, type Wiring } from '@memstream/bus';
import type { Logger } from '@memstream/logging';
import type { Metrics } from '@memstream/metrics';
import type { Lifecycle } from '@memstream/runtime';
import { clearRetiredKeywordCounts, mendOverallKeywordSums, purgeRequestOutcomes, type Store } from '@memstream/store';
import { type CONSUMERS, TOPICS } from '@memstream/schemas';
import type { GovernanceConfig } from './config.js';
import { createEraser } from './erasure-worker.js';
import { evictionWork } from './eviction-worker.js';
import { startLeaseSweeps, type LeaseSweeps, type SweptWork } from './lease-sweep.js';
import { retentionWork } from './retention-job.js';
import { transportEraser } from './transport-erasure.js';

/** The work the worker sweeps, by name: what `wake` takes. */
export type GovernanceWork = 'erasure' | 'eviction' | 'retention' | 'request-outcome-purge' | 'keyword-sums';

/**
 * The governance worker as a process runs it (alone, or inside the all-in-one): erasures (from
 * their topic, and swept), evictions, retention, the purge of request outcomes past their time
 * to live and the check of the keyword sums, each on the one lease-and-sweep runner. Resolves
 * with the runner, whose `wake` starts a sweep at once (the embedded mode's API wakes the
 * eviction sweep when it makes a job).
 */
export async function runGovernance(
  config: GovernanceConfig,
  deps: {
    bus: Bus;
    store: Store;
    log: Logger;
    lifecycle: Lifecycle;
    /** Where the retention job's counts go (the process's registry). */
    metrics?: Metrics | undefined;
    /** Removes the response streams of removed conversations (Redis, or the embedded process's memory). */
    discardStreams: (conversationIds: readonly string[]) => Promise<void>;
  },
): Promise<LeaseSweeps> {
  const eraser = createEraser(
    {
      store: deps.store,
      discard: deps.discardStreams,
      // this process's own bus: in the embedded mode, the one every service of the process reads
      eraseTransport: transportEraser(deps.bus, config),
      log: deps.log,
    },
    {
      batchSize: config.ERASURE_BATCH_SIZE,
      leaseMs: config.ERASURE_LEASE_MS,
      sweepIntervalMs: config.ERASURE_SWEEP_INTERVAL_MS,
      maxAttempts: config.ERASURE_MAX_ATTEMPTS,
    },
  );
  const works: readonly (SweptWork & { name: GovernanceWork })[] = [
    { ...eraser.work, name: 'erasure' },
    {
      ...evictionWork(
        { store: deps.store, discard: deps.discardStreams, log: deps.log },
        {
          batchSize: config.EVICTION_BATCH_SIZE,
          leaseMs: config.EVICTION_LEASE_MS,
          sweepIntervalMs: config.EVICTION_SWEEP_INTERVAL_MS,
          maxAttempts: config.EVICTION_MAX_ATTEMPTS,
        },
      ),
      name: 'eviction',
    },
    { ...retentionWork(config, deps), name: 'retention' },
    {
      // Every replica purges; the DELETE is idempotent, and the jitter keeps them from doing it together.
      name: 'request-outcome-purge',
      everyMs: 5 * 60_000,
      async takeOne() {
        const cutoff = new Date(Date.now() - config.REQUEST_STATUS_TTL_SECONDS * 1000);
        const removed = await purgeRequestOutcomes(deps.store, cutoff);
        if (removed > 0) deps.log.info({ removed }, 'expired request outcomes purged');
        return false;
      },
    },
    {
      // Every replica checks; one mends at a time (under a lock), and the next finds nothing to mend.
      // Also clears what an earlier version's writer left in a table no longer kept (migration 0048).
      name: 'keyword-sums',
      everyMs: config.KEYWORD_SUMS_CHECK_INTERVAL_MS,
      async takeOne() {
        if (await mendOverallKeywordSums(deps.store))
          deps.log.warn('the keyword sums over every conversation had drifted from its counts: summed again');
        const retired = await clearRetiredKeywordCounts(deps.store);
        if (retired > 0) deps.log.warn({ rows: retired }, 'keyword counts an earlier version wrote were cleared');
        return false;
      },
    },
  ];
  const wiring: Wiring<typeof TOPICS, typeof CONSUMERS, 'governance'> = {
    // one job at a time per partition: a job is long, and its lease keeps it to one worker anyway
    erasures: { groupId: config.GOVERNANCE_GROUP_ID, retry: retryPolicyOf(config), handler: eraser.handle },
  };
  const subscriptions = await subscribeWiring(deps.bus, TOPICS, wiring);
  deps.lifecycle.defer(
    'governance consumers',
    async () => void (await Promise.all(subscriptions.map((s) => s.stop()))),
  );
  const sweeps = startLeaseSweeps(works, deps.log);
  // Registered after the consumers, so it runs before they stop: the job in hand stops between two
  // batches instead of holding the shutdown, and is taken over once its lease runs out.
  deps.lifecycle.defer('governance sweeps', async () => {
    eraser.close();
    await sweeps.stop();
  });
  deps.log.info({ work: sweeps.running }, 'governance worker running');
  return sweeps;
}
