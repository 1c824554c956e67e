import type { ZodApp } from '@memstream/http';
import { writeOriginOf } from '@memstream/http';
import { everMemOsDocs } from './docs.js';
import { GroupChatMessage, SyncModeQuery, TOPICS, conversationIdOf, senderRefusal } from '@memstream/schemas';
import { AppError } from '@memstream/errors';
import { actorOf, type Writer } from '@memstream/ingest';
import { AcceptedReply } from './accepted-reply.js';
import { answerWrite } from './answer-write.js';

/**
 * POST /api/v1/memories: one group-chat message, published to the input topic keyed by its
 * conversation (so the converter numbers one group's messages in arrival order), answered once
 * it is stored: read-your-writes. A wait that runs out, or `?sync_mode=false`, answers 202.
 */
export function registerPostMemory(app: ZodApp, write: Writer): void {
  const docs = everMemOsDocs.route({
    summary: 'Store one group-chat message',
    description:
      'Answers once the message is stored (read-your-writes); a message already stored in its group is a duplicate and is not stored again.',
    querystring: SyncModeQuery,
    body: GroupChatMessage,
    responses: {
      200: 'Stored, or recognised as a duplicate (result.duplicate), with its sequence number',
      202: AcceptedReply,
    },
  });
  app.post('/api/v1/memories', docs, async (request, reply) => {
    const sync = request.query.sync_mode;
    const message = request.body;
    const origin = writeOriginOf(request);
    // Refused here to answer at once; the converter holds to the same rule where it counts.
    const impersonating = senderRefusal(actorOf(origin.principal), message);
    if (impersonating !== undefined) throw new AppError('FORBIDDEN', impersonating);
    const written = await write(
      origin,
      TOPICS.groupChatInput,
      { type: 'group_chat.message.received', data: message, source: 'evermemos-api' },
      sync,
    );
    return answerWrite(reply, written, (outcome) => {
      const groupId = conversationIdOf(message);
      return {
        status: 'ok',
        message: outcome.duplicate
          ? `Duplicate message: ${message.message_id} is already stored in group ${groupId}; nothing saved`
          : 'Message stored; accumulating for memory extraction, 0 memories saved',
        result: {
          // Extraction runs behind the store (episode boundaries need later messages), so a
          // message on its own saves no memory yet: "accumulated", as the reference says.
          saved_memories: [],
          count: 0,
          status_info: 'accumulated',
          request_id: written.requestId,
          duplicate: outcome.duplicate,
          group_id: groupId,
          message_id: message.message_id,
          sequence: outcome.result?.['sequence'] ?? null,
        },
      };
    });
  });
}
