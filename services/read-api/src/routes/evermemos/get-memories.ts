import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { everMemOsDocs, parseOrThrow } from '@memstream/http';
import { listMessages, type Store } from '@memstream/store';
import type { CanonicalMessage } from '@memstream/schemas';

const Query = z.object({
  group_id: z.string().min(1).optional(),
  user_id: z.string().min(1).optional(),
  memory_type: z.enum(['message']).default('message'),
  limit: z.coerce.number().int().min(1).max(500).default(40),
  offset: z.coerce.number().int().min(0).default(0),
});

/**
 * GET /api/v1/memories: stored messages of a group (or a sender), newest first, in the EverMemOS
 * envelope. Extracted memory types arrive with the memory-formation issue.
 */
export function registerGetMemories(app: FastifyInstance, deps: { store: Store }): void {
  const docs = everMemOsDocs.route({
    summary: 'Stored messages of a group or a sender, newest first',
    querystring: Query,
    responses: { 200: 'result.memories, result.total_count and result.has_more' },
  });
  app.get('/api/v1/memories', docs, async (request) => {
    const q = parseOrThrow(Query, request.query, 'query');
    const page = await listMessages(deps.store, {
      conversationId: q.group_id,
      senderId: q.user_id,
      limit: q.limit,
      offset: q.offset,
      order: 'newest-first',
    });
    return {
      status: 'ok',
      message: `Retrieved ${page.items.length} memories`,
      result: {
        memories: page.items.map(toMemory),
        total_count: page.total,
        has_more: q.offset + page.items.length < page.total,
      },
    };
  });
}

function toMemory(m: CanonicalMessage) {
  return {
    memory_type: 'message',
    message_id: m.message_id,
    group_id: m.conversation_id,
    group_name: typeof m.metadata['group_name'] === 'string' ? m.metadata['group_name'] : undefined,
    user_id: m.sender_id,
    sender_name: m.sender_name,
    timestamp: m.created_at,
    content: m.content,
    refer_list: m.refer_list,
    sequence: m.seq,
  };
}
