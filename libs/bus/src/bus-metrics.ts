import { FAST_SECONDS, type Metrics } from '@memstream/metrics';

/**
 * The series both bus implementations report under the same names, so dashboards and alerts work
 * on the embedded mode and on Kafka alike. `topic` is the catalogue's name (never the deployment's
 * prefix), `group` the consumer group.
 */
export function busMetricsOf(metrics: Metrics) {
  return {
    produceDuration: metrics.histogram({
      name: 'memstream_bus_produce_duration_seconds',
      help: 'Time from a publish call to the broker acknowledging all its records (queueing for the shared produce request included)',
      labelNames: ['topic'],
      buckets: FAST_SECONDS,
    }),
    producedRecords: metrics.counter({
      name: 'memstream_bus_produced_records_total',
      help: 'Records acknowledged by the broker',
      labelNames: ['topic'],
    }),
    produceErrors: metrics.counter({
      name: 'memstream_bus_produce_errors_total',
      help: 'Publish calls that failed (nothing of the call is promised to be written)',
      labelNames: ['topic'],
    }),
    consumerLag: metrics.gauge({
      name: 'memstream_consumer_lag_records',
      help: "Records on a partition after the consumer's position (high watermark minus next offset): on Kafka as of its last fetch, in process kept current as records arrive",
      labelNames: ['topic', 'partition', 'group'],
    }),
    parkedPartitions: metrics.gauge({
      name: 'memstream_consumer_parked_partitions',
      help: 'Kafka: 1 while a partition is parked at a record batch the consumer cannot decode (corrupt, or compressed with a codec it cannot read); nothing after it is read until an operator skips the batch',
      labelNames: ['topic', 'partition', 'group'],
    }),
    handlerDuration: metrics.histogram({
      name: 'memstream_consumer_handler_duration_seconds',
      help: 'One call of a handler: a record, or a batch of consecutive records of one partition',
      labelNames: ['topic', 'group'],
      buckets: FAST_SECONDS,
    }),
    handledRecords: metrics.counter({
      name: 'memstream_consumer_records_total',
      help: 'Records by outcome of a handling attempt: ok, retried (failed, tried again after a backoff), dead_lettered',
      labelNames: ['topic', 'group', 'outcome'],
    }),
    deadLetters: metrics.counter({
      name: 'memstream_consumer_dead_letters_total',
      help: 'Records sent to the dead-letter topic, by the error code also written in the x-dlq-error-code header',
      labelNames: ['topic', 'group', 'reason'],
    }),
  };
}

export type BusMetrics = ReturnType<typeof busMetricsOf>;

/** Times a publish call and counts its records or its failure. */
export async function measuredPublish(
  metrics: BusMetrics,
  topic: string,
  records: number,
  publish: () => Promise<void>,
): Promise<void> {
  const end = metrics.produceDuration.startTimer({ topic });
  try {
    await publish();
  } catch (err) {
    metrics.produceErrors.inc({ topic });
    throw err;
  }
  end();
  metrics.producedRecords.inc({ topic }, records);
}
