import { z } from 'zod';
import { apiFamily, type ErrorShape } from '@memstream/http';

/**
 * Two made-up API families for this lib's tests, so they exercise what a family can ask of the
 * server (an error envelope of its own, paths it owns) without naming one of the real families,
 * which live in services/api.
 */

/** An envelope with the path and a time: `{status: "failed", code, message, timestamp, path}`. */
export const envelopeErrorShape: ErrorShape = (error, request) => ({
  status: 'failed',
  code: error.statusCode >= 500 && error.statusCode !== 503 ? 'SYSTEM_ERROR' : error.code,
  message: error.message,
  timestamp: new Date().toISOString(),
  path: request.url.split('?')[0] ?? request.url,
});

export const envelopeDocs = apiFamily('Envelope', 'A family that answers errors in an envelope', {
  body: z.object({
    status: z.literal('failed'),
    code: z.string(),
    message: z.string(),
    timestamp: z.string(),
    path: z.string(),
  }),
  shape: envelopeErrorShape,
  paths: ['/api/v1'],
});

/** A small object with the reason: `{error, code}`. */
export const reasonErrorShape: ErrorShape = (error) => ({ error: error.message, code: error.code });
