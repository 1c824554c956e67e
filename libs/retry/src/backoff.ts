/** How a wait grows: from `initialDelayMs`, doubling per attempt, never past `maxDelayMs`. */
export interface Backoff {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * The wait before try `attempt + 1` (attempt counts from 1): exponential with a cap and "equal
 * jitter", half fixed and half random, so replicas or lanes retrying the same failing dependency
 * spread out instead of stampeding together, while none retries sooner than half the delay.
 */
export function backoffDelayMs(backoff: Backoff, attempt: number, random: () => number = Math.random): number {
  const capped = Math.min(backoff.maxDelayMs, backoff.initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(capped / 2 + (capped / 2) * random());
}
