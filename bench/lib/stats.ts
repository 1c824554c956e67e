/** Latency figures of one load pass, in milliseconds. */
export interface LatencySummary {
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/**
 * Nearest-rank percentiles over every sample: a pass is at most a few hundred thousand requests,
 * so sorting all of them is cheaper than getting a histogram's bucket edges right.
 */
export function summarizeLatencies(samples: Float64Array): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  const n = sorted.length;
  if (n === 0) return { count: 0, mean: 0, p50: 0, p95: 0, p99: 0, max: 0 };
  const at = (p: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))]!;
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: n,
    mean: round(sum / n, 2),
    p50: round(at(0.5), 2),
    p95: round(at(0.95), 2),
    p99: round(at(0.99), 2),
    max: round(sorted[n - 1]!, 2),
  };
}

/** Items per second over a span of milliseconds; 0 for an empty span. */
export function ratePerSecond(items: number, elapsedMs: number): number {
  return elapsedMs > 0 ? Math.round((items * 1000) / elapsedMs) : 0;
}

export function round(value: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** `12345` as `12,345`: figures in the table are read by people. */
export function grouped(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** A target from an issue, next to what was measured. */
export interface Goal {
  readonly goal: string;
  readonly value: number;
  readonly target: string;
  readonly pass: boolean;
}
