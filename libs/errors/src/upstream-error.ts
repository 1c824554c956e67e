import { AppError } from './app-error.js';

/**
 * A failed call to an HTTP API we depend on (a model server), as an AppError that says whether
 * trying later can help. A 4xx other than 408, 409 and 429 means our request was refused as it
 * stands, so repeating it gives the same answer; 429, 5xx, timeouts and dropped connections may pass.
 */
export function upstreamError(err: unknown, what: string): AppError {
  const status = (err as { status?: unknown }).status;
  const message = err instanceof Error ? err.message : String(err);
  if (
    typeof status === 'number' &&
    status >= 400 &&
    status < 500 &&
    status !== 408 &&
    status !== 409 &&
    status !== 429
  ) {
    return new AppError('SYSTEM_ERROR', `${what} request rejected (${status}): ${message}`, { cause: err });
  }
  return new AppError('DEPENDENCY_UNAVAILABLE', `${what} unavailable: ${message}`, { cause: err });
}
