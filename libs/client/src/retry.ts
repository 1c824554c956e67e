import type { RetryOptions } from '@memstream/retry';

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 5, initialDelayMs: 250, maxDelayMs: 10_000 };

/** Retry-After in seconds (the HTTP-date form is not used by our servers; it counts as absent). */
export function retryAfterMs(header: string | null, capMs = 60_000): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header.trim());
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(capMs, seconds * 1000) : undefined;
}
