import type { FastifyRequest } from 'fastify';
import { z } from 'zod';

/** What a family's error mapper gets: already decided code, status and a client-safe message. */
export interface PublicError {
  readonly code: string;
  readonly statusCode: number;
  readonly message: string;
  readonly details?: Record<string, unknown> | undefined;
}

/**
 * Each API family answers errors in its own documented shape; one mapper per family. It sees only
 * the request's URL: some errors (a header block too large) come before fastify made a request.
 */
export type ErrorShape = (error: PublicError, request: Pick<FastifyRequest, 'url'>) => unknown;

/** Used where no family claims the route (health, unknown paths). */
export const defaultErrorShape: ErrorShape = (error) => ({
  error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
});

/** The body defaultErrorShape writes, for the API documentation. */
export const DefaultErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
});
