import type { Lifecycle } from '@memstream/runtime';
import type { Logger } from '@memstream/logging';
import type { Metrics } from '@memstream/metrics';
import { createHttpServer, type ReadinessCheck } from './create-http-server.js';

/**
 * What a consumer process serves over HTTP: health for probes and /metrics for scrapers, on its
 * port, closed with the lifecycle. The API processes build their servers themselves (routes,
 * authentication, docs); every consumer's is this one.
 */
export async function serveProbes(
  process: {
    config: { PORT: number; HOST?: string | undefined; HTTP_BODY_LIMIT_BYTES: number };
    log: Logger;
    lifecycle: Lifecycle;
    metrics: Metrics;
  },
  readinessChecks: readonly ReadinessCheck[],
): Promise<void> {
  const { config, log, lifecycle, metrics } = process;
  const http = createHttpServer({
    log,
    lifecycle,
    metrics,
    bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES,
    readinessChecks,
  });
  await http.listen({ port: config.PORT, host: config.HOST ?? '0.0.0.0' });
  lifecycle.defer('http', () => http.close());
}
