import { backoffDelayMs, type Backoff } from './backoff.js';
import { sleep } from './sleep.js';

export interface RetryOptions extends Backoff {
  /** Total tries, the first included. */
  readonly maxAttempts: number;
  /** Ends the waits early when the caller gives up (an import interrupted, a call aborted). */
  readonly signal?: AbortSignal;
}

/** What one try came to: done, or worth another try (after at least `afterMs`, when the other side asked for it). */
export type Attempt<T> =
  | { readonly kind: 'done'; readonly value: T }
  | { readonly kind: 'retry'; readonly reason: string; readonly afterMs?: number | undefined };

export class RetriesExhausted extends Error {
  override readonly name = 'RetriesExhausted';
  constructor(
    readonly attempts: number,
    readonly lastReason: string,
  ) {
    super(`gave up after ${attempts} attempts: ${lastReason}`);
  }
}

/**
 * Runs `once` until it is done or the attempts run out, waiting the backoff between tries (or
 * longer, when a try says the other side asked for longer). A try that fails for good throws:
 * only what it calls worth another try is tried again.
 */
export async function withRetry<T>(once: (attempt: number) => Promise<Attempt<T>>, options: RetryOptions): Promise<T> {
  let reason = 'no attempt made';
  for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
    const outcome = await once(attempt);
    if (outcome.kind === 'done') return outcome.value;
    reason = outcome.reason;
    if (attempt === options.maxAttempts) break;
    await sleep(Math.max(backoffDelayMs(options, attempt), outcome.afterMs ?? 0), options.signal);
  }
  throw new RetriesExhausted(options.maxAttempts, reason);
}
