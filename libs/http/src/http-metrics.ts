import type { FastifyInstance } from 'fastify';
import { FAST_SECONDS, type Metrics } from '@memstream/metrics';

/** Requests no route matched share one label value, so scanners cannot mint series. */
const UNMATCHED_ROUTE = 'unmatched';

/**
 * Times every request by method, route pattern (`/stream/:session_id`, never the raw URL, whose
 * ids would make a series per session) and status code, and serves the process's registry at
 * `/metrics` in the Prometheus text format.
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  const duration = metrics.histogram({
    name: 'memstream_http_request_duration_seconds',
    help: 'HTTP requests from arrival to the last byte of the answer (an SSE stream: its whole life)',
    labelNames: ['method', 'route', 'status_code'],
    buckets: FAST_SECONDS,
  });
  app.addHook('onResponse', async (request, reply) => {
    duration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? UNMATCHED_ROUTE,
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const { contentType, body } = await metrics.render();
    return reply.type(contentType).send(body);
  });
}
