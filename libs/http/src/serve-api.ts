import type { FastifyInstance } from 'fastify';
import { authSettingsOf, createAuthenticator } from '@memstream/auth';
import { listenHostOf } from '@memstream/config';
import type { Logger } from '@memstream/logging';
import type { Metrics } from '@memstream/metrics';
import type { Lifecycle } from '@memstream/runtime';
import { createHttpServer, type ReadinessCheck } from './create-http-server.js';
import type { ApiDocsOptions } from './openapi/api-docs.js';

/** What an API process's settings hold for its HTTP server: port, body limit, credentials. */
type ApiProcessConfig = Parameters<typeof authSettingsOf>[0] & {
  readonly PORT: number;
  readonly HOST?: string | undefined;
  readonly HTTP_BODY_LIMIT_BYTES: number;
  readonly PUBLIC_HOSTS: readonly string[];
  readonly HTTP_BODY_IDLE_TIMEOUT_MS: number;
  readonly HTTP_BODY_TIMEOUT_MS: number;
  readonly HTTP_STREAM_BODY_IDLE_TIMEOUT_MS: number;
  readonly HTTP_MAX_CONNECTIONS_PER_IP?: number | undefined;
  readonly SSE_MAX_STREAMS_PER_CALLER: number;
};

/**
 * An API process's HTTP server (the gateway, the read API, the embedded mode): authentication
 * from its AUTH_* settings, its OpenAPI document, its routes, listening where listenHostOf says
 * (loopback when nobody must authenticate), closed with the lifecycle. Resolves with the port.
 */
export async function serveApi(
  process: { config: ApiProcessConfig; log: Logger; lifecycle: Lifecycle; metrics: Metrics },
  options: {
    openapi: ApiDocsOptions;
    readinessChecks?: readonly ReadinessCheck[];
    register: (app: FastifyInstance) => Promise<void>;
  },
): Promise<number> {
  const { config, log, lifecycle, metrics } = process;
  const authenticator = createAuthenticator(authSettingsOf(config));
  const http = createHttpServer({
    log,
    lifecycle,
    metrics,
    bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES,
    authenticator,
    edge: {
      publicHosts: config.PUBLIC_HOSTS,
      // Behind a proxy or a Kubernetes service the Host is theirs to choose unless the operator names it.
      enforceHost: !authenticator.enabled || config.PUBLIC_HOSTS.length > 0,
      bodyIdleTimeoutMs: config.HTTP_BODY_IDLE_TIMEOUT_MS,
      bodyTimeoutMs: config.HTTP_BODY_TIMEOUT_MS,
      streamBodyIdleTimeoutMs: config.HTTP_STREAM_BODY_IDLE_TIMEOUT_MS,
      maxConnectionsPerAddress: config.HTTP_MAX_CONNECTIONS_PER_IP ?? (authenticator.enabled ? 0 : 512),
      maxStreamsPerCaller: config.SSE_MAX_STREAMS_PER_CALLER,
    },
    ...(options.readinessChecks ? { readinessChecks: options.readinessChecks } : {}),
    openapi: options.openapi,
  });
  await options.register(http);
  await http.listen({ port: config.PORT, host: listenHostOf(config) });
  lifecycle.defer('http', () => http.close());
  const address = http.server.address();
  return typeof address === 'object' && address ? address.port : config.PORT;
}
