import type { ApiFamilyPlugin } from '../../api-deps.js';
import { memoryServiceErrorShape } from '../memory-service/error-shape.js';
import { consoleDocs } from './docs.js';
import { registerConversationsRoute } from './conversations-route.js';
import { registerPipelineRoute } from './pipeline-route.js';

/** memstream's reads for the console: conversations across families, each filtered by the caller's access, and the pipeline's lag. */
export const consoleFamily: ApiFamilyPlugin = {
  docs: consoleDocs,
  errorShape: memoryServiceErrorShape,
  register({ reads }, deps) {
    if (!reads) return;
    registerConversationsRoute(reads, deps.store);
    registerPipelineRoute(reads, deps);
  },
};
