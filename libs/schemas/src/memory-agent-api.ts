import { z } from 'zod';
import { STORED_ID_MAX_CHARS } from './ids.js';

/** The Memory Agent's reads: `conversation_id` is whatever id the writing API used. */
export const MemoryAgentSummariesQuery = z.object({ conversation_id: z.string().min(1).max(STORED_ID_MAX_CHARS) });
export const MemoryAgentContextQuery = MemoryAgentSummariesQuery.extend({
  format: z.enum(['json', 'text']).default('json'),
});
