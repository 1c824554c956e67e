import { SLOW_SECONDS, type Metrics } from '@memstream/metrics';

/** How long an episode's extraction takes, claim to stored (or parked), by extractor and outcome. */
export function extractionMetricsOf(metrics: Metrics) {
  return {
    duration: metrics.histogram({
      name: 'memstream_extraction_duration_seconds',
      help: 'One episode extraction from claim to stored, discarded (changed meanwhile) or failed, by extractor and outcome',
      labelNames: ['extractor', 'outcome'],
      buckets: SLOW_SECONDS,
    }),
    episodesClosed: metrics.counter({
      name: 'memstream_episodes_closed_total',
      help: 'Episodes closed, by the rule that closed them',
      labelNames: ['reason'],
    }),
  };
}

export type ExtractionMetrics = ReturnType<typeof extractionMetricsOf>;
