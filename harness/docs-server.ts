import type { FastifyInstance } from 'fastify';
import { createAuthenticator, type Authenticator } from '@memstream/auth';
import { createHttpServer, type ApiDocsOptions } from '@memstream/http';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { Lifecycle } from '@memstream/runtime';

/**
 * A server of the HTTP runtime with nothing behind it (a silent log, a lifecycle and metrics of
 * its own, no listening socket), for routes registered with dependencies they never touch: what
 * they document (`/docs/json`, `app.swagger()`) and which routes fastify ends up with are read
 * from it, never a request that reaches a store or a bus. No credentials unless `authenticator`.
 */
export function docsServer(
  openapi: ApiDocsOptions,
  authenticator: Authenticator = createAuthenticator({ apiKeys: [] }),
): FastifyInstance {
  const log = createLogger({ service: 'docs', level: 'silent' });
  return createHttpServer({
    log,
    lifecycle: new Lifecycle({ log, shutdownTimeoutMs: 1000 }),
    bodyLimitBytes: 1024,
    metrics: new Metrics(),
    openapi,
    authenticator,
  });
}
