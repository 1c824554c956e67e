import { z } from 'zod';
import { STORED_ID_MAX_CHARS } from './ids.js';

/** The Memory Agent's reads: `conversation_id` is whatever id the writing API used. */
export const MemoryAgentSummariesQuery = z.object({ conversation_id: z.string().min(1).max(STORED_ID_MAX_CHARS) });
export const MemoryAgentContextQuery = MemoryAgentSummariesQuery.extend({
  format: z.enum(['json', 'text']).default('json'),
});

/** One memory row of the version chain; `memory_text` is empty while it is being made. */
export const SummaryRowBody = z.object({
  memory_id: z.number().int(),
  conversation_id: z.string(),
  memory_text: z.string(),
  start_sequence: z.number().int(),
  end_sequence: z.number().int(),
  base_memory_id: z.number().int().nullable(),
  status: z.enum(['processing', 'completed', 'failed']),
  created_at: z.string(),
  generation_time_ms: z.number().nullable(),
  attempts: z.number().int(),
  error: z.string().nullable(),
});

export const SummariesBody = z.object({ conversation_id: z.string(), summaries: z.array(SummaryRowBody) });

/** A message after the latest memory, as the context lists it. */
const GapMessage = z.object({
  sequence: z.number().int(),
  message_id: z.string(),
  sender_id: z.string(),
  sender_name: z.string(),
  role: z.enum(['user', 'assistant', 'system', 'tool']),
  content: z.string(),
  created_at: z.string(),
});

export const MemoryAgentContextBody = z.object({
  conversation_id: z.string(),
  memory: z
    .object({
      memory_id: z.number().int(),
      memory_text: z.string(),
      start_sequence: z.number().int(),
      end_sequence: z.number().int(),
    })
    .nullable(),
  gap_messages: z.array(GapMessage),
});
