import type { Logger } from '@memstream/logging';
import type { Metrics } from '@memstream/metrics';
import { RETENTION_KINDS, type Store } from '@memstream/store';
import type { GovernanceConfig } from './config.js';
import { runRetention, type RetentionPeriods } from './retention-runner.js';
import type { SweptWork } from './lease-sweep.js';
import { leaseOwner } from './erasure-worker.js';

/** The periods set in the configuration; a kind left unset is kept forever. */
export function retentionPeriodsOf(config: GovernanceConfig): RetentionPeriods {
  const periods: RetentionPeriods = {
    messages: config.RETENTION_MESSAGES,
    memories: config.RETENTION_MEMORIES,
    summaries: config.RETENTION_SUMMARIES,
    kaosEvents: config.RETENTION_KAOS_EVENTS,
    arkSessions: config.RETENTION_ARK_SESSIONS,
    deleted: config.RETENTION_DELETED,
  };
  return Object.fromEntries(Object.entries(periods).filter(([, v]) => v !== undefined));
}

/**
 * The retention run, once per RETENTION_INTERVAL_MS. Every replica sweeps it; the named lease keeps
 * it to one at a time, and a run completed lately is not repeated by the next replica to wake up.
 * A metadata override is looked for even with no period set, so the work is always swept.
 */
export function retentionWork(
  config: GovernanceConfig,
  deps: {
    store: Store;
    log: Logger;
    metrics?: Metrics | undefined;
    discardStreams: (conversationIds: readonly string[]) => Promise<void>;
  },
): SweptWork {
  const removed = deps.metrics?.counter({
    name: 'memstream_retention_removed_total',
    help: 'Rows the retention job removed (or, for episodesRebuilt, reopened), by kind of setting and by what',
    labelNames: ['kind', 'what'],
  });
  const lastRun = deps.metrics?.gauge({
    name: 'memstream_retention_last_run_timestamp_seconds',
    help: 'When the last retention run this process made started (Unix time)',
  });
  const periods = retentionPeriodsOf(config);
  const owner = leaseOwner();
  const log = deps.log.child({ job: 'retention' });
  return {
    name: 'retention',
    everyMs: config.RETENTION_INTERVAL_MS,
    async takeOne(signal) {
      const run = await runRetention({
        store: deps.store,
        periods,
        owner,
        leaseMs: config.RETENTION_LEASE_MS,
        minGapMs: Math.floor(config.RETENTION_INTERVAL_MS / 2),
        batchSize: config.RETENTION_BATCH_SIZE,
        discard: deps.discardStreams,
        log,
        signal,
      });
      if (run) {
        lastRun?.set(run.startedAt.getTime() / 1000);
        for (const kind of RETENTION_KINDS)
          for (const [what, n] of Object.entries(run.byKind[kind])) if (n > 0) removed?.inc({ kind, what }, n);
      }
      // one run per period: the lease and minGapMs decide whether this replica's was the one
      return false;
    },
  };
}
