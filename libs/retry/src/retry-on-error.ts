import { backoffDelayMs, type Backoff } from './backoff.js';
import { sleep } from './sleep.js';

export interface RetryOnErrorOptions {
  /** Total tries, the first included; Infinity tries until a failure is not retriable. */
  readonly attempts: number;
  readonly backoff: Backoff;
  /** Whether a failure of try `attempt` is worth another; by default every failure but a programmer error. */
  readonly retriable?: (err: unknown, attempt: number) => boolean;
  /** Told before each wait, so the caller logs in its own words. */
  readonly onRetry?: (retry: { readonly err: unknown; readonly attempt: number; readonly delayMs: number }) => void;
  /** Ends a wait early (with the signal's reason) when the caller gives up. */
  readonly signal?: AbortSignal;
  readonly random?: () => number;
}

/**
 * Calls `fn` until it resolves, trying again what `retriable` calls worth it after the backoff
 * (exponential, capped, jittered). What is not retriable, and the failure of the last try, is
 * thrown as it was, so the caller sees the real error. A programmer error is never tried again,
 * whatever `retriable` says: the same code fails the same way. Beware that fetch reports a
 * dropped connection as a TypeError: wrap such calls so their failures say what they are.
 */
export async function retryOnError<T>(fn: (attempt: number) => Promise<T>, options: RetryOnErrorOptions): Promise<T> {
  const retriable = options.retriable ?? (() => true);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= options.attempts || isProgrammerError(err) || !retriable(err, attempt)) throw err;
      const delayMs = backoffDelayMs(options.backoff, attempt, options.random);
      options.onRetry?.({ err, attempt, delayMs });
      await sleep(delayMs, options.signal);
    }
  }
}

/** A bug in the code that ran, not a condition of the world it ran in. */
export function isProgrammerError(err: unknown): boolean {
  return (
    err instanceof TypeError ||
    err instanceof RangeError ||
    err instanceof ReferenceError ||
    err instanceof SyntaxError ||
    err instanceof EvalError ||
    err instanceof URIError
  );
}
