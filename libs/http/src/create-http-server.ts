import { randomUUID } from 'node:crypto';
import { AppError } from '@memstream/errors';
import { jsonValueError, prototypeKeyError } from './json-value-check.js';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from '@memstream/logging';
import type { Metrics } from '@memstream/metrics';
import type { Lifecycle } from '@memstream/runtime';
import type { Authenticator } from '@memstream/auth';
import { requireCredentials } from './authentication.js';
import {
  answerUnroutedInFamilyShape,
  clientErrorInFamilyShape,
  frameworkErrorsInFamilyShape,
  shapeByPath,
} from './edge-errors.js';

import { guardEdge, type EdgeGuardOptions } from './edge-guard.js';
import { CallerCounts, capConnectionsPerAddress } from './caller-caps.js';
import { registerHttpMetrics } from './http-metrics.js';
import { registerApiDocs, type ApiDocsOptions } from './openapi/api-docs.js';

export type ReadinessCheck = () => Promise<void>;

export interface HttpServerOptions {
  readonly log: Logger;
  readonly lifecycle: Lifecycle;
  readonly bodyLimitBytes: number;
  /** Each must resolve for /health to answer 200 (the store answers, and so on). */
  readonly readinessChecks?: readonly ReadinessCheck[];
  /** The process's registry, served at `/metrics`; request durations are recorded on it. */
  readonly metrics: Metrics;
  /** Serve the OpenAPI document of the routes registered afterwards at `/docs` (API services). */
  readonly openapi?: ApiDocsOptions;
  /** Who may call (API processes): every route but health, metrics and docs requires credentials. */
  readonly authenticator?: Authenticator;
  /** API processes: the Host, Origin and media-type checks, body deadlines and per-caller caps. */
  readonly edge?: EdgeGuardOptions & {
    readonly maxConnectionsPerAddress: number;
    readonly maxStreamsPerCaller: number;
  };
}

/** Request headers whose value becomes the request id, which is also the correlation id. */
const REQUEST_ID_HEADERS = ['x-request-id', 'x-correlation-id'] as const;

/**
 * A fastify instance with what every memstream HTTP process shares: request ids (honouring an
 * incoming x-request-id or x-correlation-id: it becomes the correlation id that travels with the
 * write through Kafka into every consumer's log lines), the root error handler, `/metrics`, and
 * health: `/health/live` (the process runs), `/health/ready` (JSON) and `/health` (the text `OK`)
 * when ready and every check passes. With `openapi`, the API documentation at `/docs`.
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const shapeFor = shapeByPath(options.openapi?.families ?? []);
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; the cast keeps the instance type fastify's default
    loggerInstance: options.log as FastifyBaseLogger,
    bodyLimit: options.bodyLimitBytes,
    // The router's own limit (100) would answer a longer path id with 414 in fastify's shape,
    // before any family's validation: ids are checked (at most 255) by each route's schema.
    routerOptions: { maxParamLength: 2048 },
    genReqId: (req) => {
      for (const header of REQUEST_ID_HEADERS) {
        const incoming = req.headers[header];
        if (typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming)) return incoming;
      }
      return randomUUID();
    },
    requestIdHeader: false,
    // the same field name as the consumers' lines, so one query finds a write end to end
    logController: new LogController({ requestIdLogLabel: 'correlationId' }),
    frameworkErrors: frameworkErrorsInFamilyShape(shapeFor),
    clientErrorHandler: clientErrorInFamilyShape(shapeFor),
  });
  answerUnroutedInFamilyShape(
    app,
    shapeFor,
    shapeByPath(options.openapi?.families ?? [], options.openapi?.unclaimedNotFound),
  );
  // A text/plain body is what a cross-site form or no-cors fetch may send without a preflight; no
  // route takes it but ARK's relay, which says so in its own scope.
  app.removeContentTypeParser('text/plain');
  // A request that declares JSON but sends nothing (clients do, on DELETE) has no body, not a bad
  // one; anything else goes to fastify's own parser, prototype-poisoning checks included.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      // JSON is UTF-8: bytes that are not are refused, not silently replaced with U+FFFD.
      text = typeof body === 'string' ? body : STRICT_UTF8.decode(body);
    } catch {
      return done(new AppError('INVALID_PARAMETER', 'Data format error: the body is not valid UTF-8'), undefined);
    }
    if (text === '') done(null, undefined);
    else
      parseJson(request, text, (err, value) => {
        if (err) return done(prototypeKeyError(text) ?? err, undefined);
        // What the store cannot hold, or would hold changed (1e400 read as Infinity is written as
        // null), is refused here, once for every route, as a 400 in the route's own error shape:
        // otherwise it fails deep in a write as a 500, or is stored other than as sent.
        const refused = jsonValueError(value);
        done(refused ?? null, refused ? undefined : value);
      });
  });
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  // Before credentials: a foreign page or Host is refused whoever it claims to be.
  if (options.edge) {
    guardEdge(app, options.edge);
    capConnectionsPerAddress(app.server, options.edge.maxConnectionsPerAddress);
  }
  app.decorate('streamsPerCaller', new CallerCounts(options.edge?.maxStreamsPerCaller ?? 0));
  if (options.authenticator) requireCredentials(app, options.authenticator, options.log);
  registerHttpMetrics(app, options.metrics);
  if (options.openapi) registerApiDocs(app, options.openapi, options.authenticator?.enabled === true);

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
    return reply
      .status(state.ok ? 200 : 503)
      .send(state.ok ? { status: 'ok' } : { status: 'unavailable', reason: state.reason });
  };
  // `/health` answers as ARK's memory service does (its tests read the text `OK`); no caller of
  // ours reads its body, and the probes keep their JSON on /health/ready and /health/live.
  const plainHealth = async (_req: unknown, reply: FastifyReply) => {
    const state = await ready();
    return reply
      .status(state.ok ? 200 : 503)
      .type('text/plain; charset=utf-8')
      .send(state.ok ? 'OK' : `Service Unavailable: ${state.reason}`);
  };
  const probe = { schema: { hide: true } };
  app.get('/health', probe, plainHealth);
  app.get('/health/ready', probe, readiness);
  app.get('/health/live', probe, async () => ({ status: 'ok' }));
  return app;
}
