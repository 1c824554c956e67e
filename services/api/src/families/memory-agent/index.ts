import type { ApiFamilyPlugin } from '../../api-deps.js';
import { memoryAgentDocs } from './docs.js';
import { registerSummaries } from './summaries.js';

/** The Memory Agent: reads only (summaries and a round's context); what it reads is written through the other families. */
export const memoryAgent: ApiFamilyPlugin = {
  docs: memoryAgentDocs,
  // No HTTP error format of its own: the platform's default shape.
  errorShape: undefined,
  register({ reads }, deps) {
    if (reads) registerSummaries(reads, deps);
  },
};
