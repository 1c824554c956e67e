import type { ApiFamilyPlugin } from '../../api-deps.js';
import { kaosDocs } from './docs.js';
import { kaosErrorShape } from './error-shape.js';
import { agentOf, kaosOps } from './kaos-ops.js';
import { registerKaosSessionRoutes } from './session-routes.js';
import { registerKaosMemoryRoutes } from './memory-routes.js';
import { registerNullMemoryRoutes } from './null-memory.js';

/**
 * KAOS agent memory: sessions and events per agent. Writes (creating and deleting sessions,
 * adding events, cleanup) go through Kafka; reads never publish. With memory disabled, KAOS's
 * NullMemory answers on the same routes, on the same halves.
 */
export const kaos: ApiFamilyPlugin = {
  docs: kaosDocs,
  errorShape: kaosErrorShape,
  register(on, deps) {
    // (deps.kaos is absent only where routes are registered to be listed or documented, never served.)
    if (deps.kaos?.enabled === false) {
      registerNullMemoryRoutes(on, (request) => agentOf(request, deps.kaos.defaultAgent));
      return;
    }
    const ops = kaosOps({ store: deps.store, write: deps.write, settings: deps.kaos });
    registerKaosSessionRoutes(on, ops, deps.store);
    registerKaosMemoryRoutes(on, ops, deps.store);
  },
};
