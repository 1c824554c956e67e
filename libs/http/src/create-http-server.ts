import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from '@memstream/logging';
import type { Lifecycle } from '@memstream/runtime';
import { errorHandlerFor } from './error-handler.js';
import { defaultErrorShape } from './error-shapes/error-shape.js';

export type ReadinessCheck = () => Promise<void>;

export interface HttpServerOptions {
  readonly log: Logger;
  readonly lifecycle: Lifecycle;
  readonly bodyLimitBytes: number;
  /** Each must resolve for /health to answer 200 (the store answers, and so on). */
  readonly readinessChecks?: readonly ReadinessCheck[];
}

/**
 * A fastify instance with what every memstream HTTP process shares: request ids (honouring an
 * incoming x-request-id, which becomes the correlation id), the root error handler, and health:
 * `/health/live` (the process runs), `/health/ready` and `/health` (ready and every check passes).
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; the cast keeps the instance type fastify's default
    loggerInstance: options.log as FastifyBaseLogger,
    bodyLimit: options.bodyLimitBytes,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    },
    requestIdHeader: false,
  });
  app.setErrorHandler(errorHandlerFor(defaultErrorShape));
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });

  const ready = async (): Promise<{ ok: boolean; reason?: string }> => {
    if (!options.lifecycle.ready) return { ok: false, reason: options.lifecycle.stopping ? 'stopping' : 'starting' };
    try {
      await Promise.all((options.readinessChecks ?? []).map((check) => check()));
      return { ok: true };
    } catch (err) {
      return { ok: false, reason: err instanceof Error ? err.message : 'check failed' };
    }
  };
  const readiness = async (_req: unknown, reply: FastifyReply) => {
    const state = await ready();
    return reply.status(state.ok ? 200 : 503).send(state.ok ? { status: 'ok' } : { status: 'unavailable', reason: state.reason });
  };
  app.get('/health', readiness);
  app.get('/health/ready', readiness);
  app.get('/health/live', async () => ({ status: 'ok' }));
  return app;
}
