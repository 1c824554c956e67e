import { z } from 'zod';
import type { ErrorShape } from '@memstream/http';

/** The memory-service's own error codes, by our catalogue's. */
const CODES: Record<string, string> = {
  INVALID_PARAMETER: 'bad_request',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  URI_TOO_LONG: 'uri_too_long',
  HEADERS_TOO_LARGE: 'headers_too_large',
  UNAUTHENTICATED: 'unauthorized',
  FORBIDDEN: 'forbidden',
  RESOURCE_NOT_FOUND: 'not_found',
  CONFLICT: 'conflict',
  TOO_MANY_REQUESTS: 'too_many_requests',
  DEPENDENCY_UNAVAILABLE: 'service_unavailable',
  OVERLOADED: 'service_unavailable',
  TIMEOUT: 'timeout',
};

/** The codes whose details carry the message, as the memory-service's refusals do (`details.message`). */
const WITH_MESSAGE = new Set(['bad_request', 'forbidden', 'conflict', 'TRANSFER_ALREADY_PENDING']);

/**
 * memory-service answers errors as `{error, code, details}` with lower-case codes (not_found,
 * forbidden, ...). A second ownership offer while one is pending is the exception: the service
 * refuses it with its own code, naming the pending offer in `details.existingTransferId`.
 */
export const memoryServiceErrorShape: ErrorShape = (error) => {
  const pendingOffer = error.code === 'CONFLICT' && error.details?.['existingTransferId'] !== undefined;
  const code = pendingOffer ? 'TRANSFER_ALREADY_PENDING' : (CODES[error.code] ?? 'internal_error');
  const details = WITH_MESSAGE.has(code) ? { message: error.message, ...error.details } : error.details;
  return { error: error.message, code, ...(details ? { details } : {}) };
};

/** The body memoryServiceErrorShape writes, for the API documentation. */
export const MemoryServiceErrorBody = z.object({
  error: z.string().meta({ description: 'What was wrong' }),
  code: z.string().meta({
    description:
      'bad_request, unauthorized, forbidden, not_found, conflict, TRANSFER_ALREADY_PENDING (a second ownership offer), payload_too_large, uri_too_long, headers_too_large, too_many_requests, service_unavailable, timeout, internal_error',
  }),
  details: z.record(z.string(), z.unknown()).optional().meta({
    description:
      'For not_found: {resource, id}; for bad_request, forbidden and conflict: {message, ...}; for TRANSFER_ALREADY_PENDING: {message, existingTransferId}',
  }),
});
