import type { ApiFamilyPlugin } from '../../api-deps.js';
import { memoryServiceDocs } from './docs.js';
import { memoryServiceErrorShape } from './error-shape.js';
import { memoryServiceHandlers } from './handlers.js';
import { registerDocumentRoutes } from './document-routes.js';
import { registerCodeRoutes } from './code-routes.js';
import { registerSearch } from './search.js';
import { registerAgentContext } from './agent-context.js';
import { registerResponseResumer } from './response-resumer.js';
import { registerMemorySync } from './memory-sync.js';
import { registerOwnershipTransferRoutes } from './ownership-transfers.js';

/**
 * The memory-service, both of its layouts from one implementation, each route on its half:
 * writes (creating, appending, forking, sharing, transfers, deletions, summaries, recording and
 * cancelling a response) go through Kafka or the response streams; reads (conversations,
 * messages, forks, members, search, agent context, following a response) never publish.
 */
export const memoryService: ApiFamilyPlugin = {
  docs: memoryServiceDocs,
  errorShape: memoryServiceErrorShape,
  register(on, deps) {
    const handlers = memoryServiceHandlers({ store: deps.store, write: deps.write });
    registerDocumentRoutes(on, handlers);
    // The code layout answers a stranger 403, as the real service answers its generated clients.
    const code = memoryServiceHandlers({ store: deps.store, write: deps.write, strangers: 'forbidden' });
    registerCodeRoutes(on, code);
    registerOwnershipTransferRoutes(on, code, deps.store);
    if (on.writes) registerMemorySync(on.writes, code, deps.store);
    if (on.reads) registerSearch(on.reads, deps);
    registerAgentContext(on, code, deps.store);
    registerResponseResumer(on, code, {
      responses: deps.responses,
      heartbeatMs: deps.sseHeartbeatMs,
      access: deps.access,
    });
  },
};
