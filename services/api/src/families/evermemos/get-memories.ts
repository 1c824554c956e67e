import type { ZodApp } from '@memstream/http';
import { AppError } from '@memstream/errors';
import { parseOrThrow, queryWithGetBody } from '@memstream/http';
import { everMemOsDocs } from './docs.js';
import { listEpisodicMemories, listMessages, type Store } from '@memstream/store';
import {
  everMemOsScope,
  ListMemoriesQuery as Query,
  ListMemoriesQueryDocument,
  MAGIC_ALL,
  MemoryListAnswer,
  parseCreateTime,
} from '@memstream/schemas';
import { episodicView, messageView } from './memory-views.js';
import { audiencesFor, personOf } from '../../shared/access.js';

/**
 * GET /api/v1/memories: a group's (or a user's) stored messages or episodic memories, newest
 * first, with the total, in the EverMemOS envelope. For episodic memories `user_id` selects the
 * memories about that participant, and `user_id=""` the group's own narrative. The parameters come
 * in the query string or, as EverMemOS's clients send them, in a JSON body on the GET (the body
 * wins). EverMemOS's other memory kinds (profiles, foresight, event logs) are not formed here:
 * they answer an empty list.
 */
export function registerGetMemories(app: ZodApp, deps: { store: Store }): void {
  const docs = everMemOsDocs.route({
    summary: 'Stored messages or episodic memories of a group or a user, newest first',
    description:
      'The parameters may also come as a JSON body on the GET (the body wins). profile, foresight, event_log, personal_semantic_memory and personal_event_log are not formed by memstream: an empty list.',
    querystring: ListMemoriesQueryDocument,
    // EverMemOS's clients send a GET's parameters as a JSON body too: merged with the query, then parsed
    parsedByHandler: ['querystring'],
    responses: { 200: MemoryListAnswer },
  });
  app.get('/api/v1/memories', docs, async (request) => {
    const q = parseOrThrow(Query, await queryWithGetBody(request), 'query');
    const scope = everMemOsScope(q.group_id, q.user_id);
    if ('refusal' in scope) throw new AppError('INVALID_PARAMETER', scope.refusal);
    const from = q.start_time !== undefined ? parseCreateTime(q.start_time) : undefined;
    const to = q.end_time !== undefined ? parseCreateTime(q.end_time) : undefined;
    const visibleTo = personOf(request);
    const page =
      q.memory_type === 'message'
        ? // a message always has a sender: "no one in particular" matches none
          scope.userId === null
          ? { items: [], total: 0 }
          : await listMessages(deps.store, {
              conversationId: scope.conversationId,
              // an EverMemOS group is a conversation of its own group (docs/store.md)
              groupKey: scope.conversationId,
              senderId: scope.userId,
              visibleTo,
              audiences: audiencesFor(request),
              from,
              to,
              limit: q.limit,
              offset: q.offset,
              order: 'newest-first',
            }).then((p) => ({ items: p.items.map(messageView), total: p.total }))
        : q.memory_type === 'episodic_memory'
          ? await listEpisodicMemories(deps.store, {
              conversationId: scope.conversationId,
              userId: scope.userId,
              visibleTo,
              from,
              to,
              limit: q.limit,
              offset: q.offset,
            }).then((p) => ({ items: p.items.map(episodicView), total: p.total }))
          : { items: [], total: 0 };
    return {
      status: 'ok' as const,
      message: `Memory retrieval successful, retrieved ${page.items.length} memories`,
      result: {
        memories: page.items,
        total_count: page.total,
        has_more: q.offset + page.items.length < page.total,
        // what EverMemOS's clients read back: the filters as they sent them
        metadata: {
          source:
            q.memory_type === 'message' || q.memory_type === 'episodic_memory'
              ? ('memstream' as const)
              : ('not_formed' as const),
          user_id: q.user_id === undefined ? MAGIC_ALL : (q.user_id ?? ''),
          memory_type: q.memory_type,
          limit: q.limit,
          ...(q.group_id !== undefined ? { group_id: q.group_id } : {}),
          ...(q.start_time !== undefined ? { start_time: q.start_time } : {}),
          ...(q.end_time !== undefined ? { end_time: q.end_time } : {}),
        },
      },
    };
  });
}
