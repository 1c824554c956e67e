import { z } from 'zod';
import type { ErrorShape } from '@memstream/http';

/**
 * EverMemOS envelope (spec 001): `{status:"failed", code, message, timestamp, path}`. Its codes
 * are ours for the common cases; anything unexpected is SYSTEM_ERROR with no internals.
 */
export const everMemOsErrorShape: ErrorShape = (error, request) => ({
  status: 'failed',
  code: error.statusCode >= 500 && error.statusCode !== 503 ? 'SYSTEM_ERROR' : error.code,
  message: error.message,
  timestamp: new Date().toISOString(),
  path: request.url.split('?')[0] ?? request.url,
});

/** The body everMemOsErrorShape writes, for the API documentation. */
export const EverMemOsErrorBody = z.object({
  status: z.literal('failed'),
  code: z.string().meta({
    description:
      'INVALID_PARAMETER, PAYLOAD_TOO_LARGE, RESOURCE_NOT_FOUND, SYSTEM_ERROR, DEPENDENCY_UNAVAILABLE, OVERLOADED',
  }),
  message: z.string(),
  timestamp: z.string().meta({ description: 'ISO 8601' }),
  path: z.string().meta({ description: 'The request path, without the query' }),
  detail: z
    .array(z.object({ type: z.string(), loc: z.array(z.string()), msg: z.string() }))
    .optional()
    .meta({ description: "On a 422 only: the refusal as EverMemOS's server (FastAPI) lists validation errors" }),
});
