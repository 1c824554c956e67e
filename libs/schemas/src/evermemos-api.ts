import { z } from 'zod';
import { parseCreateTime } from './group-chat-message.js';

/**
 * The EverMemOS family's HTTP requests beyond the message and the metadata themselves: the
 * queries and bodies its routes parse. They live here, not in the routes, so that the TypeScript
 * client types its calls with the very schemas the server validates with.
 */

/** `?sync_mode=false` answers once the broker has the write; the default waits for the store. */
export const SyncModeQuery = z
  .object({
    sync_mode: z
      .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
      .default('true')
      .transform((v) => v === 'true' || v === '1')
      .meta({ description: 'false answers 202 once the broker has the write, instead of waiting for the store' }),
  })
  .loose();

/** The spec's answer when the write is safe but not yet done. */
export const AcceptedReply = z.object({ status: z.literal('ok'), message: z.string(), request_id: z.string() }).meta({
  description:
    'Kafka has the write, storing it outlasted REQUEST_SYNC_TIMEOUT_MS (or sync_mode=false): poll GET /api/v1/stats/request',
});

export const ListMemoriesQuery = z.object({
  group_id: z.string().min(1).optional(),
  user_id: z.string().min(1).optional(),
  // Messages by default, as before episodes existed: clients listing a group's history keep working.
  memory_type: z.enum(['message', 'episodic_memory']).default('message'),
  limit: z.coerce.number().int().min(1).max(500).default(40),
  offset: z.coerce.number().int().min(0).default(0),
});

export const MemoryType = z.enum(['episodic_memory', 'message']);
/** A time with or without a zone (zone-less is UTC, as for messages). */
const Instant = z
  .string()
  .min(1)
  .refine((s) => parseCreateTime(s) !== undefined, 'must be an ISO 8601 date-time');

export const SearchMemoriesRequest = z.object({
  query: z.string().trim().min(1).max(4_000),
  group_id: z.string().min(1).optional(),
  user_id: z.string().min(1).optional(),
  retrieve_method: z.enum(['keyword', 'vector', 'hybrid', 'rrf']).default('hybrid'),
  top_k: z.coerce.number().int().min(1).max(100).default(10),
  memory_types: z.array(MemoryType).min(1).default(['episodic_memory', 'message']),
  start_time: Instant.optional(),
  end_time: Instant.optional(),
});

export const DeleteMemoriesFilter = z
  .object({
    message_id: z.string().min(1).optional(),
    group_id: z.string().min(1).optional(),
    user_id: z.string().min(1).optional(),
  })
  .refine((f) => f.message_id !== undefined || f.group_id !== undefined || f.user_id !== undefined, {
    message: 'give at least one of message_id, group_id, user_id',
  });

export const FlushMemoriesRequest = z.object({
  group_id: z.string().min(1),
  sync_mode: z.boolean().default(true),
});

export const ConversationMetaQuery = z.object({ group_id: z.string().min(1).max(255) });
export const MemoryStatsQuery = z.object({ group_id: z.string().min(1) });
export const RequestStatusQuery = z.object({ request_id: z.string().min(1).max(200) });
