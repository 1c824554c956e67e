import type { FastifyInstance } from 'fastify';
import type { ResponseStreams } from '@memstream/fanout';
import { errorHandlerFor } from '@memstream/http';
import { memoryServiceErrorShape } from '@memstream/api-families';
import type { QueryEmbedder } from '@memstream/search';
import type { Store } from '@memstream/store';
import { auditEveryCall } from './audit.js';
import { registerAuditRoutes } from './audit-routes.js';
import { registerAdminConversationRoutes } from './conversation-routes.js';
import { createEvictor, type EvictionSettings, type Evictor } from './eviction.js';
import { registerEvictRoutes } from './evict-routes.js';
import { registerAdminSearch } from './search-route.js';

export type { EvictionSettings } from './eviction.js';

export interface AdminDeps {
  readonly store: Store;
  readonly embedder: QueryEmbedder;
  /** Response streams are discarded with the conversations an eviction purges. */
  readonly responses: ResponseStreams | undefined;
  readonly eviction: EvictionSettings;
}

/**
 * The admin and auditor API (memory-service's admin contract) as one plugin: conversations of
 * every person and family, search across everyone, eviction, and the audit log every call writes.
 * Errors come in memory-service's shape. The eviction worker starts with the server (it also
 * takes over jobs a dead process left) and stops with it.
 */
export async function registerAdmin(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  await app.register(async (admin) => {
    admin.setErrorHandler(errorHandlerFor(memoryServiceErrorShape));
    auditEveryCall(admin, deps.store);
    let evictor: Evictor | undefined;
    // (deps.store is absent only where routes are registered to be documented, never served.)
    if (deps.store !== undefined) {
      admin.addHook('onReady', async () => {
        evictor = createEvictor({ store: deps.store, responses: deps.responses, log: admin.log }, deps.eviction);
      });
      admin.addHook('onClose', async () => evictor?.close());
    }
    registerAdminConversationRoutes(admin, deps.store);
    registerAdminSearch(admin, deps);
    registerEvictRoutes(admin, {
      store: deps.store,
      evictor: () => {
        if (!evictor) throw new Error('the eviction worker starts when the server is ready');
        return evictor;
      },
    });
    registerAuditRoutes(admin, deps.store);
  });
}
