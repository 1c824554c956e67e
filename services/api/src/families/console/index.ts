import type { ApiFamilyPlugin } from '../../api-deps.js';
import { memoryServiceErrorShape } from '../memory-service/error-shape.js';
import { consoleDocs } from './docs.js';
import { registerConversationsRoute } from './conversations-route.js';

/** memstream's reads across families for the console; reads only, each filtered by the caller's access. */
export const consoleFamily: ApiFamilyPlugin = {
  docs: consoleDocs,
  errorShape: memoryServiceErrorShape,
  register({ reads }, deps) {
    if (reads) registerConversationsRoute(reads, deps.store);
  },
};
