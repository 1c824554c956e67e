import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator, Principal } from '@memstream/auth';
import type { Logger } from '@memstream/logging';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling; set before any API family's handler runs (see requireCredentials). */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Served to anyone, credentials or not: a static site's files, whose pages call the API with the caller's own. */
    openToAll?: boolean;
  }
}

/** Open to anyone, credentials or not: probes, scraping and the API's own documentation. */
const OPEN_PREFIXES = ['/health', '/metrics', '/docs', '/v1/health'];

function isOpen(request: FastifyRequest): boolean {
  if (request.routeOptions.config?.openToAll === true) return true;
  const url = request.routeOptions.url;
  return url !== undefined && OPEN_PREFIXES.some((prefix) => url === prefix || url.startsWith(`${prefix}/`));
}

/**
 * Every route but the open ones requires credentials: the check is one root hook, so a route
 * added later, in any family, is closed unless it is on the open list. A refusal is thrown inside
 * the route's own context, so each family answers 401 in its own error shape.
 */
export function requireCredentials(app: FastifyInstance, authenticator: Authenticator, log: Logger): void {
  app.decorateRequest('principal', null);
  if (!authenticator.enabled) {
    log.warn(
      'authentication is not configured (AUTH_JWT_SECRET, AUTH_JWKS_URL, AUTH_API_KEYS): serving this machine only, every caller is the user "local"',
    );
  }
  app.addHook('onRequest', async (request) => {
    if (isOpen(request)) return;
    request.principal = await authenticator.authenticate(request.headers);
  });
}

/**
 * For the functions that register an API family's routes: refuses, at start-up, a server built
 * without an authenticator, so no composition can serve a family's data without the check.
 */
export function assertAuthenticated(app: FastifyInstance): void {
  if (!app.hasRequestDecorator('principal'))
    throw new Error('API routes need a server created with an authenticator (createHttpServer({ authenticator }))');
}

/** The caller of a route of an API family. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null || request.principal === undefined)
    throw new Error(`no principal on ${request.method} ${request.url}: the route is on the open list`);
  return request.principal;
}

/**
 * A write's origin as the libraries take it (plain values, no framework): the request id that
 * follows the write through Kafka as its correlation id, the caller, and the request's logger.
 */
export function writeOriginOf(request: FastifyRequest): {
  correlationId: string;
  principal: Principal;
  log: FastifyRequest['log'];
} {
  return { correlationId: request.id, principal: principalOf(request), log: request.log };
}
