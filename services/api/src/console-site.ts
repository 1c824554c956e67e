import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { serveStatic } from '@memstream/http';

/** The console's build (clients/console, built by `npm ci`), from src/ and dist/ alike. */
const CONSOLE_DIR = fileURLToPath(new URL('../../../clients/console/dist', import.meta.url));

/**
 * The console at /console: its own files only, nothing from elsewhere (the policy holds the
 * page to this origin, so it can reach no other server with the caller's credentials).
 */
export function serveConsole(app: FastifyInstance): Promise<void> {
  return serveStatic(app, {
    prefix: '/console',
    root: CONSOLE_DIR,
    headers: {
      'content-security-policy':
        "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      'referrer-policy': 'no-referrer',
    },
  });
}
