import { z } from 'zod';
import type { ErrorShape } from '@memstream/http';

/**
 * KAOS's agent server is FastAPI: its errors are `{"detail": ...}`. We answer that, with our
 * catalogue's code beside it so a client can tell a refusal from an outage without parsing text.
 */
export const kaosErrorShape: ErrorShape = (error) => ({
  detail: error.message,
  code: error.statusCode >= 500 && error.statusCode !== 503 ? 'SYSTEM_ERROR' : error.code,
});

/** The body kaosErrorShape writes, for the API documentation. */
export const KaosErrorBody = z.object({
  detail: z.string().meta({ description: 'What was wrong, naming the field' }),
  code: z.string().meta({
    description:
      'INVALID_PARAMETER, UNAUTHENTICATED, FORBIDDEN, RESOURCE_NOT_FOUND, CONFLICT, PAYLOAD_TOO_LARGE, OVERLOADED, DEPENDENCY_UNAVAILABLE, SYSTEM_ERROR',
  }),
});
