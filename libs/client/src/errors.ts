import type { SourceApi } from '@memstream/schemas';

/**
 * The API families the server speaks; each answers errors in its own envelope. `platform` is
 * what every process serves beside them (`/metrics`), in the platform's default shape.
 */
export type Family = SourceApi | 'platform';

/**
 * The one error the client throws. `code` is the family's own code as the server sent it
 * (`RESOURCE_NOT_FOUND` for EverMemOS, `not_found` for memory-service, ...), so code written
 * against one family's documentation keeps working; failures that never reached an answer
 * have status 0 and the codes `TIMEOUT`, `ABORTED` or `NETWORK_ERROR`.
 */
export class MemstreamError extends Error {
  override readonly name = 'MemstreamError';
  readonly status: number;
  readonly family: Family;
  readonly code: string;
  /** The answer's body as parsed JSON (or text), undefined when there was no answer. */
  readonly body: unknown;
  /** What the server asked for in Retry-After, when it did. */
  readonly retryAfterMs: number | undefined;

  constructor(init: {
    status: number;
    family: Family;
    code: string;
    message: string;
    body?: unknown;
    retryAfterMs?: number | undefined;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.family = init.family;
    this.code = init.code;
    this.body = init.body;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/**
 * Reads code and message out of whichever envelope the family uses: EverMemOS
 * `{status, code, message}`, ARK `{error, code}`, memory-service `{error, code, details}`,
 * KAOS `{detail, code}`, the Memory Agent `{error: {code, message}}`.
 */
export function errorFromAnswer(family: Family, status: number, body: unknown, retryAfterMs?: number): MemstreamError {
  const b = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const nested = b['error'] !== null && typeof b['error'] === 'object' ? (b['error'] as Record<string, unknown>) : {};
  const code = firstString(b['code'], nested['code']) ?? `HTTP_${status}`;
  const message =
    firstString(
      b['message'],
      b['error'],
      b['detail'],
      nested['message'],
      typeof body === 'string' && body !== '' ? body : undefined,
    ) ?? `HTTP ${status}`;
  return new MemstreamError({ status, family, code, message, body, retryAfterMs });
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((v): v is string => typeof v === 'string');
}
