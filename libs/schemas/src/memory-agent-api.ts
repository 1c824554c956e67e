import { z } from 'zod';

/** The Memory Agent's reads: `conversation_id` is whatever id the writing API used. */
export const MemoryAgentSummariesQuery = z.object({ conversation_id: z.string().min(1).max(255) });
export const MemoryAgentContextQuery = MemoryAgentSummariesQuery.extend({ format: z.enum(['json', 'text']).default('json') });
