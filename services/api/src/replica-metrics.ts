import type { Metrics } from '@memstream/metrics';
import type { ReadOutcome, ReplicaLag } from '@memstream/store';

/**
 * The read API's replica series: where reads were answered, and each replica's distance behind the
 * primary, read at each scrape (the console's pipeline page shows them). `lag` is the store's
 * (ReplicaReads.lag), given once the store is open; reads are counted through the callback returned.
 */
export function replicaMetrics(metrics: Metrics): {
  onRead: (outcome: ReadOutcome, replica: string | undefined) => void;
  watch: (lag: () => Promise<ReplicaLag[]>) => void;
} {
  const reads = metrics.counter({
    name: 'memstream_replica_reads_total',
    help: 'Read statements of the read API by where they ran: a replica, or the primary because the replica lagged past DATABASE_REPLICA_WAIT_MS or was unavailable',
    labelNames: ['replica', 'outcome'],
  });
  let lag: (() => Promise<ReplicaLag[]>) | undefined;
  const reading = () => lag?.() ?? Promise.resolve([]);
  const gauge = (name: string, help: string, value: (l: ReplicaLag) => number | undefined) =>
    metrics.gauge({
      name,
      help,
      labelNames: ['replica'],
      async collect() {
        this.reset();
        for (const l of await reading()) {
          const v = value(l);
          if (v !== undefined) this.set({ replica: l.replica }, v);
        }
      },
    });
  gauge('memstream_replica_up', 'Whether the replica answered its last replay-position question (1) or not (0)', (l) =>
    l.up ? 1 : 0,
  );
  gauge(
    'memstream_replica_lag_bytes',
    'WAL bytes the replica has yet to replay of what the primary flushed',
    (l) => l.bytes,
  );
  gauge(
    'memstream_replica_lag_seconds',
    'Seconds since the replica replayed its last transaction while it is behind; 0 when caught up',
    (l) => l.seconds,
  );
  return {
    onRead: (outcome, replica) => reads.inc({ replica: replica ?? '', outcome }),
    watch: (read) => {
      lag = read;
    },
  };
}
