import type { ApiFamilyPlugin } from '../../api-deps.js';
import { memoryServiceErrorShape } from '../memory-service/error-shape.js';
import { adminDocs } from './docs.js';
import { auditEveryCall } from './audit.js';
import { registerAuditRoutes } from './audit-routes.js';
import { registerDeadLettersRoute } from './dead-letters-route.js';
import { registerAdminConversationRoutes } from './conversation-routes.js';
import { registerEvictRoutes } from './evict-routes.js';
import { registerErasureRoutes } from './erasure-routes.js';
import { registerExportRoutes } from './export-routes.js';
import { registerImportRoutes } from './import-routes.js';
import { registerRolesRoute } from './roles-route.js';
import { registerAdminSearch } from './search-route.js';

/**
 * The admin and auditor API (memory-service's admin contract): conversations of every person and
 * family, search across everyone, eviction, erasure of a person (and its `/v1/me` twin for the
 * person themself), and the audit log every call writes. Errors come in
 * memory-service's shape. Reads (listings, search, the audit log, a job's state) on the read half;
 * deleting, restoring and evicting on the write half. An eviction or an erasure is a job row the
 * governance worker runs; the API only writes it and reads how it went.
 */
export const admin: ApiFamilyPlugin = {
  docs: adminDocs,
  errorShape: memoryServiceErrorShape,
  register(on, deps) {
    // Both halves are one scope where one process serves both: audit it once.
    const scopes = new Set([on.reads, on.writes].filter((scope) => scope !== undefined));
    for (const scope of scopes) auditEveryCall(scope, deps.store);
    registerAdminConversationRoutes(on, { store: deps.store, write: deps.write });
    registerAdminSearch(on, deps);
    registerEvictRoutes(on, { store: deps.store, wakeEviction: deps.wakeEviction });
    registerErasureRoutes(on, deps);
    registerAuditRoutes(on, deps.store);
    registerExportRoutes(on, deps.store);
    registerImportRoutes(on, deps.store);
    registerRolesRoute(on);
    registerDeadLettersRoute(on, deps.transport);
  },
};
