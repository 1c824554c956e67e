import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { publishEvents, type Bus } from '@memstream/bus';
import { AppError } from '@memstream/errors';
import { parseOrThrow } from '@memstream/http';
import { GroupChatMessage, TOPICS, type GroupChatMessageReceived } from '@memstream/schemas';

export interface PostMemoryDeps {
  readonly bus: Bus;
}

/**
 * POST /api/v1/memories: one group-chat message in, published to the input topic keyed by its
 * conversation, so the converter stores messages of one group in the order they arrived.
 */
export function registerPostMemory(app: FastifyInstance, deps: PostMemoryDeps): void {
  app.post('/api/v1/memories', async (request, reply) => {
    const message = parseOrThrow(GroupChatMessage, request.body);
    const event: GroupChatMessageReceived = {
      id: randomUUID(),
      type: 'group_chat.message.received',
      occurred_at: new Date().toISOString(),
      correlation_id: request.id,
      source: 'evermemos-api',
      data: message,
    };
    try {
      await publishEvents(deps.bus, TOPICS.groupChatMessages, [event]);
    } catch (err) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'Message broker unavailable, please retry later', { cause: err });
    }
    return reply.status(202).send({
      status: 'ok',
      message: 'Request accepted, processing in background',
      request_id: request.id,
    });
  });
}
