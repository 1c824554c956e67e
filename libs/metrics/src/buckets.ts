/**
 * Histogram buckets in seconds, shared so that series of one kind can be compared and summed.
 * Fast paths (a produce, an HTTP read) resolve in milliseconds; slow ones (a model call, a
 * summary) in seconds to minutes, so each gets the range where its percentiles actually move.
 */
export const FAST_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

export const SLOW_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300] as const;
