import { z } from 'zod';

/**
 * What live readers of a conversation (SSE streams) hear on its fan-out channel: messages just
 * stored by any family (with their sequence numbers, so a reader that replayed history can skip what it has),
 * token chunks relayed as they are posted, and the end of the session's stream.
 */
export const LiveEvent = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('messages'),
    messages: z.array(
      z.object({
        seq: z.number().int(),
        created_at: z.string(),
        query_id: z.string().nullable(),
        message: z.record(z.string(), z.unknown()),
        /** Who may see it beyond the members (audienceOfMessage); absent or null: every reader. */
        audience: z.string().nullable().optional(),
      }),
    ),
  }),
  z.object({
    type: z.literal('chunk'),
    chunk_seq: z.number().int(),
    /**
     * The number of the session's chunk kept just before this one (null: none). Chunks are numbered
     * across all sessions, so only this tells a reader that a chunk of its session came between the
     * last one it sent and this one, which the live channel lost. Absent from older publishers.
     */
    prev_chunk_seq: z.number().int().nullable().optional(),
    chunk: z.record(z.string(), z.unknown()),
  }),
  z.object({ type: z.literal('complete') }),
]);
export type LiveEvent = z.infer<typeof LiveEvent>;

export const LIVE_CHANNEL_PREFIX = 'memstream.live.';

export function liveChannelOf(conversationId: string): string {
  return `${LIVE_CHANNEL_PREFIX}${conversationId}`;
}
