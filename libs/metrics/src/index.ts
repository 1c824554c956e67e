export { Metrics, type MetricsOptions } from './metrics.js';
export { FAST_SECONDS, SLOW_SECONDS } from './buckets.js';
export type { Counter, Gauge, Histogram } from 'prom-client';
