export interface RetryOptions {
  /** Total tries, the first included. */
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** Ends the waits early when the caller gives up (an import interrupted, a call aborted). */
  readonly signal?: AbortSignal;
}

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 5, initialDelayMs: 250, maxDelayMs: 10_000 };

/** What one try came to: done, failed for good, or worth another try (optionally after a delay the server asked for). */
export type Attempt<T> =
  | { readonly kind: 'done'; readonly value: T }
  | { readonly kind: 'retry'; readonly reason: string; readonly afterMs?: number | undefined };

export class RetriesExhausted extends Error {
  override readonly name = 'RetriesExhausted';
  constructor(readonly attempts: number, readonly lastReason: string) {
    super(`gave up after ${attempts} attempts: ${lastReason}`);
  }
}

/**
 * Runs `once` until it is done or the attempts run out. The delay doubles from `initialDelayMs`
 * up to `maxDelayMs` with equal jitter (half fixed, half random), so parallel lanes hitting the
 * same overloaded server spread out; a server's Retry-After wins when it asks for longer.
 */
export async function withRetry<T>(once: (attempt: number) => Promise<Attempt<T>>, options: RetryOptions = DEFAULT_RETRY): Promise<T> {
  let reason = 'no attempt made';
  for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
    const outcome = await once(attempt);
    if (outcome.kind === 'done') return outcome.value;
    reason = outcome.reason;
    if (attempt === options.maxAttempts) break;
    const backoff = backoffMs(options, attempt);
    await sleep(Math.max(backoff, outcome.afterMs ?? 0), options.signal);
  }
  throw new RetriesExhausted(options.maxAttempts, reason);
}

export function backoffMs(options: Pick<RetryOptions, 'initialDelayMs' | 'maxDelayMs'>, attempt: number, random = Math.random): number {
  const capped = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** (attempt - 1));
  return Math.round(capped / 2 + (capped / 2) * random());
}

/** Retry-After in seconds (the HTTP-date form is not used by our servers; it counts as absent). */
export function retryAfterMs(header: string | null, capMs = 60_000): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header.trim());
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(capMs, seconds * 1000) : undefined;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
