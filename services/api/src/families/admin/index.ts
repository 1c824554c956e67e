import type { ApiFamilyPlugin } from '../../api-deps.js';
import { memoryServiceErrorShape } from '../memory-service/error-shape.js';
import { adminDocs } from './docs.js';
import { auditEveryCall } from './audit.js';
import { registerAuditRoutes } from './audit-routes.js';
import { registerDeadLettersRoute } from './dead-letters-route.js';
import { registerAdminConversationRoutes } from './conversation-routes.js';
import { createEvictor, type Evictor } from './eviction.js';
import { registerEvictRoutes } from './evict-routes.js';
import { registerErasureRoutes } from './erasure-routes.js';
import { registerExportRoutes } from './export-routes.js';
import { registerImportRoutes } from './import-routes.js';
import { registerRolesRoute } from './roles-route.js';
import { registerAdminSearch } from './search-route.js';

export type { EvictionSettings } from './eviction.js';

/**
 * The admin and auditor API (memory-service's admin contract): conversations of every person and
 * family, search across everyone, eviction, erasure of a person (and its `/v1/me` twin for the
 * person themself), and the audit log every call writes. Errors come in
 * memory-service's shape. Reads (listings, search, the audit log, a job's state) on the read half;
 * deleting, restoring and evicting on the write half, whose process also runs the eviction worker
 * (it takes over the jobs a dead process left) from when the server is ready until it closes.
 */
export const admin: ApiFamilyPlugin = {
  docs: adminDocs,
  errorShape: memoryServiceErrorShape,
  register(on, deps) {
    // Both halves are one scope where one process serves both: audit it once.
    const scopes = new Set([on.reads, on.writes].filter((scope) => scope !== undefined));
    for (const scope of scopes) auditEveryCall(scope, deps.store);
    let evictor: Evictor | undefined;
    // (deps.store is absent only where routes are registered to be documented, never served.)
    if (on.writes && deps.store !== undefined) {
      const writes = on.writes;
      writes.addHook('onReady', async () => {
        evictor = createEvictor({ store: deps.store, responses: deps.responses, log: writes.log }, deps.eviction);
      });
      writes.addHook('onClose', async () => evictor?.close());
    }
    registerAdminConversationRoutes(on, { store: deps.store, write: deps.write });
    registerAdminSearch(on, deps);
    registerEvictRoutes(on, {
      store: deps.store,
      evictor: () => {
        if (!evictor) throw new Error('the eviction worker starts when the server is ready');
        return evictor;
      },
    });
    registerErasureRoutes(on, deps);
    registerAuditRoutes(on, deps.store);
    registerExportRoutes(on, deps.store);
    registerImportRoutes(on, deps.store);
    registerRolesRoute(on);
    registerDeadLettersRoute(on, deps.transport);
  },
};
