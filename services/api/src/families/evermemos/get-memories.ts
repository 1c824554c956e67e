import type { FastifyInstance } from 'fastify';
import { parseOrThrow } from '@memstream/http';
import { everMemOsDocs } from './docs.js';
import { listEpisodicMemories, listMessages, type Store } from '@memstream/store';
import { ListMemoriesQuery as Query } from '@memstream/schemas';
import { episodicView, messageView } from './memory-views.js';
import { audiencesFor, personOf } from '../../shared/access.js';

/**
 * GET /api/v1/memories: a group's (or a user's) stored messages or episodic memories, newest
 * first, with the total, in the EverMemOS envelope. For episodic memories `user_id` selects the
 * memories about that participant.
 */
export function registerGetMemories(app: FastifyInstance, deps: { store: Store }): void {
  const docs = everMemOsDocs.route({
    summary: 'Stored messages or episodic memories of a group or a user, newest first',
    querystring: Query,
    responses: { 200: 'result.memories, result.total_count and result.has_more' },
  });
  app.get('/api/v1/memories', docs, async (request) => {
    const q = parseOrThrow(Query, request.query, 'query');
    const visibleTo = personOf(request);
    const page =
      q.memory_type === 'message'
        ? await listMessages(deps.store, {
            conversationId: q.group_id,
            senderId: q.user_id,
            visibleTo,
            audiences: audiencesFor(request),
            limit: q.limit,
            offset: q.offset,
            order: 'newest-first',
          }).then((p) => ({ items: p.items.map(messageView), total: p.total }))
        : await listEpisodicMemories(deps.store, {
            conversationId: q.group_id,
            userId: q.user_id,
            visibleTo,
            limit: q.limit,
            offset: q.offset,
          }).then((p) => ({
            items: p.items.map(episodicView),
            total: p.total,
          }));
    return {
      status: 'ok',
      message: `Retrieved ${page.items.length} memories`,
      result: {
        memories: page.items,
        total_count: page.total,
        has_more: q.offset + page.items.length < page.total,
      },
    };
  });
}
