import { isUnavailable } from './unavailable.js';

/**
 * The one error type that crosses module boundaries. `code` is stable and machine-readable,
 * `statusCode` is what HTTP answers, `retriable` is what consumers branch on: a retriable error
 * is tried again with backoff, anything else goes straight to the dead-letter topic.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly retriable: boolean;
  /** Extra facts for the client (which field was bad); never internals. */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    const entry = CATALOGUE[code];
    this.statusCode = entry.statusCode;
    this.retriable = entry.retriable;
    this.details = options.details;
  }
}

/** Every error the platform can raise, with its HTTP status and whether trying again can help. */
export const CATALOGUE = {
  INVALID_PARAMETER: { statusCode: 400, retriable: false },
  /** No credentials, or credentials that do not verify (expired, wrong signature, unknown key). */
  UNAUTHENTICATED: { statusCode: 401, retriable: false },
  /** The caller is known and may see the resource, but not do this to it. */
  FORBIDDEN: { statusCode: 403, retriable: false },
  PAYLOAD_TOO_LARGE: { statusCode: 413, retriable: false },
  /** The URL (or one of its path segments) is longer than the server reads. */
  URI_TOO_LONG: { statusCode: 414, retriable: false },
  /** The request's header block is larger than the server reads (Node's limit, 16 KiB by default). */
  HEADERS_TOO_LARGE: { statusCode: 431, retriable: false },
  /**
   * The caller holds as much of a bounded resource as one caller may (connections, streams,
   * responses in progress): later, or after ending one.
   */
  TOO_MANY_REQUESTS: { statusCode: 429, retriable: true },
  RESOURCE_NOT_FOUND: { statusCode: 404, retriable: false },
  CONFLICT: { statusCode: 409, retriable: false },
  /** The event on a topic does not match its schema: a poison message, never retried. */
  INVALID_EVENT: { statusCode: 400, retriable: false },
  /** Kafka, Postgres or Redis did not answer; the same call may succeed later. */
  DEPENDENCY_UNAVAILABLE: { statusCode: 503, retriable: true },
  OVERLOADED: { statusCode: 503, retriable: true },
  TIMEOUT: { statusCode: 504, retriable: true },
  SYSTEM_ERROR: { statusCode: 500, retriable: false },
  /**
   * Two writers stored the same message at the same moment; the loser's statement failed whole
   * and wrote nothing. Run again, it finds the row and reports a duplicate.
   */
  CONCURRENT_APPEND: { statusCode: 409, retriable: true },
  /** A consumer's dead-letter reason: a retriable failure that outlasted the topic's attempts. */
  RETRIES_EXHAUSTED: { statusCode: 500, retriable: false },
  /** A consumer's dead-letter reason: the handler failed in a way no retry mends (a bug, a refused write). */
  HANDLER_ERROR: { statusCode: 500, retriable: false },
} as const satisfies Record<string, { statusCode: number; retriable: boolean }>;

export type ErrorCode = keyof typeof CATALOGUE;

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/**
 * Decides whether an unknown failure is worth retrying. Our own errors say so themselves;
 * network-level failures from drivers are retriable; programmer errors (TypeError and the like)
 * never are, because running the same code again gives the same bug.
 */
export function isRetriable(err: unknown): boolean {
  if (isAppError(err)) return err.retriable;
  if (isUnavailable(err)) return true;
  if (err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError) return false;
  const code = (err as { code?: unknown } | null)?.code;
  // Postgres SQLSTATE classes: 08 connection, 40 serialization/deadlock, 53 resources, 57 operator
  // intervention (network failures are isUnavailable's, above)
  if (typeof code === 'string' && /^(08|40|53|57)[0-9A-Z]{3}$/.test(code)) return true;
  const retriable = (err as { retriable?: unknown } | null)?.retriable;
  return retriable === true;
}
