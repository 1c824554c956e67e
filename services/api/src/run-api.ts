import { serveApi } from '@memstream/http';
import type { Store } from '@memstream/store';
import { apiDocsOf, registerApi, type ApiDeps, type ApiRole } from './register-api.js';
import { serveConsole } from './console-site.js';

/**
 * The one entry point of every API process: the ingest gateway (`gateway`), the read API
 * (`read`) and the embedded mode (`all`) each open their dependencies and call this, which
 * registers the role's halves of every family and serves them with the process's health,
 * metrics, `/docs` and lifecycle. The processes that serve reads also serve the console at
 * `/console` (its calls go back through the same API as the signed-in caller). Resolves with the
 * listening port.
 */
export async function runApi<R extends ApiRole>(
  ctx: Parameters<typeof serveApi>[0],
  role: R,
  deps: ApiDeps<R> & { readonly store: Store },
): Promise<number> {
  return serveApi(ctx, {
    openapi: apiDocsOf(role),
    readinessChecks: [() => deps.store.ping()],
    register: async (app) => {
      await registerApi(app, role, deps);
      if (role !== 'gateway') await serveConsole(app);
    },
  });
}
