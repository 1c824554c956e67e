import type { FastifyInstance } from 'fastify';
import { AppError } from '@memstream/errors';
import { parseOrThrow } from '@memstream/http';
import { everMemOsDocs } from '@memstream/api-families';
import { forgetMessages, type Store } from '@memstream/store';
import { DeleteMemoriesFilter as Filter } from '@memstream/schemas';
import { personOf, requireAccess } from '../../access.js';

/**
 * DELETE /api/v1/memories: forgets the messages matching every filter given (query string or
 * JSON body), their vectors and every memory derived from them; an episode that keeps other
 * messages is extracted again without the deleted ones. 404 when nothing matched.
 */
export function registerDeleteMemories(app: FastifyInstance, deps: { store: Store }): void {
  const docs = everMemOsDocs.route({
    summary: 'Forget messages (by message_id, group_id, user_id), their vectors and the memories made from them',
    querystring: Filter,
    responses: { 200: 'result.deleted_messages, deleted_memories, episodes_reextracting, episodes_deleted; 404 when nothing matched' },
  });
  app.delete('/api/v1/memories', docs, async (request) => {
    const body = request.body !== null && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};
    const filter = parseOrThrow(Filter, { ...(request.query as Record<string, unknown>), ...body }, 'filter');
    const nothing = () => new AppError('RESOURCE_NOT_FOUND', 'No memories matched the filter');
    // A person forgets only in groups they manage or own: named, a lower level is a 403; across
    // groups, the others are simply left out.
    if (filter.group_id !== undefined) await requireAccess(deps.store, request, filter.group_id, 'manager', nothing);
    const result = await forgetMessages(deps.store, {
      messageId: filter.message_id,
      conversationId: filter.group_id,
      senderId: filter.user_id,
      managedBy: personOf(request),
    });
    if (result.deletedMessages === 0) throw nothing();
    return {
      status: 'ok',
      message: `Deleted ${result.deletedMessages} messages and ${result.deletedMemories} memories`,
      result: {
        deleted_messages: result.deletedMessages,
        deleted_memories: result.deletedMemories,
        episodes_reextracting: result.episodesReopened,
        episodes_deleted: result.episodesDeleted,
        count: result.deletedMessages + result.deletedMemories,
      },
    };
  });
}
