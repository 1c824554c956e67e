import { SLOW_SECONDS, type Metrics } from '@memstream/metrics';

/**
 * How long a summary takes, start to stored: the same span as the row's `generation_time_ms`,
 * as a histogram so percentiles can be read without querying the table.
 */
export function summaryMetricsOf(metrics: Metrics) {
  return {
    generationDuration: metrics.histogram({
      name: 'memstream_summary_generation_duration_seconds',
      help: 'One summarization from start to stored (or failed), by summarizer (offline-extractive, model:<name>) and outcome',
      labelNames: ['summarizer', 'outcome'],
      buckets: SLOW_SECONDS,
    }),
  };
}

export type SummaryMetrics = ReturnType<typeof summaryMetricsOf>;
