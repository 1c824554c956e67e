import type { RetryPolicy } from './bus.js';

/**
 * Exponential backoff with a cap and "equal jitter": half the delay is fixed, half random, so
 * replicas retrying the same failing dependency spread out instead of stampeding together.
 */
export function backoffDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const exp = policy.initialDelayMs * 2 ** Math.max(0, attempt - 1);
  const capped = Math.min(policy.maxDelayMs, exp);
  return Math.round(capped / 2 + (capped / 2) * random());
}

/** Sleeps, but wakes early (rejecting) when the signal aborts, so shutdown is never stuck in a backoff. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new StopRequested());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new StopRequested());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Thrown when a subscription stops while a record waits to be retried: it stays uncommitted. */
export class StopRequested extends Error {
  override readonly name = 'StopRequested';
  constructor() {
    super('subscription stopping; record left for redelivery');
  }
}
