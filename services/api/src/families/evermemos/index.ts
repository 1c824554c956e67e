import type { ApiFamilyPlugin } from '../../api-deps.js';
import { everMemOsDocs } from './docs.js';
import { everMemOsErrorShape } from './error-shape.js';
import { registerPostMemory } from './post-memory.js';
import { registerConversationMeta } from './conversation-meta.js';
import { registerGetMemories } from './get-memories.js';
import { registerSearchMemories } from './search-memories.js';
import { registerDeleteMemories } from './delete-memories.js';
import { registerFlushMemories } from './flush-memories.js';
import { extractionNotices } from './extraction-notices.js';
import { OpenSpanTracker } from '@memstream/episodes';
import { registerGetMemoryStats } from './get-memory-stats.js';
import { registerGetConversationMeta } from './get-conversation-meta.js';
import { registerGetRequestStatus } from './get-request-status.js';

/**
 * EverMemOS's group-chat memory API. Writes: a message, a group's metadata (create, change), a
 * deletion and a flush, each an event through Kafka held until applied. Reads: listings,
 * searches (GET and POST), the group's metadata, memory formation's progress and a request's
 * status. One route file each, in the order the document lists them.
 */
export const everMemOs: ApiFamilyPlugin = {
  docs: everMemOsDocs,
  errorShape: everMemOsErrorShape,
  register({ writes, reads }, deps) {
    const notices = writes && extractionNotices(writes, deps.fanout);
    // what this server's own writes tell of each group's open episode (see OpenSpanTracker)
    const spans = new OpenSpanTracker(deps.episodeRules);
    if (writes && notices) registerPostMemory(writes, deps, notices, spans);
    if (writes) registerConversationMeta(writes, deps.write);
    if (reads) registerGetMemories(reads, deps);
    if (reads) registerSearchMemories(reads, deps);
    if (writes) registerDeleteMemories(writes, deps, spans);
    if (writes && notices) registerFlushMemories(writes, deps, notices, spans);
    if (reads) registerGetMemoryStats(reads, deps);
    if (reads) registerGetConversationMeta(reads, deps);
    if (reads) registerGetRequestStatus(reads, deps);
  },
};
