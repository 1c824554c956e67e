import type { ZodApp } from '@memstream/http';
import { writeOriginOf } from '@memstream/http';
import { everMemOsDocs } from './docs.js';
import {
  GroupChatMessage,
  SyncModeQuery,
  TOPICS,
  WriteMemoryAnswer,
  conversationIdOf,
  parseCreateTime,
} from '@memstream/schemas';
import { isUnavailable } from '@memstream/errors';
import type { Writer } from '@memstream/ingest';
import { requireOwnSender } from '../../shared/sender.js';
import { AcceptedReply } from './accepted-reply.js';
import { replyOutcomeOrRequestId } from './reply-outcome-or-request-id.js';
import type { BoundaryRules, OpenSpanTracker } from '@memstream/episodes';
import type { Store } from '@memstream/store';
import { formationOf, type Formation } from './closing-write.js';
import type { ExtractionNotices } from './extraction-notices.js';
import { episodicView } from './memory-views.js';

/**
 * POST /api/v1/memories: one group-chat message, published to the input topic keyed by its
 * conversation (so the converter numbers one group's messages in arrival order), answered once
 * it is stored: read-your-writes. A wait that runs out, or `?sync_mode=false`, answers 202.
 */
export function registerPostMemory(
  app: ZodApp,
  deps: { store: Store; write: Writer; syncTimeoutMs: number; episodeRules: BoundaryRules },
  notices: ExtractionNotices,
  spans: OpenSpanTracker,
): void {
  const docs = everMemOsDocs.route({
    summary: 'Store one group-chat message',
    description:
      'Answers once the message is stored (read-your-writes); a message already stored in its group is a duplicate and is not stored again.',
    querystring: SyncModeQuery,
    body: GroupChatMessage,
    responses: {
      200: WriteMemoryAnswer.meta({
        description: 'Stored, or recognised as a duplicate (result.duplicate), with its sequence number',
      }),
      202: AcceptedReply,
    },
  });
  app.post('/api/v1/memories', docs, async (request, reply) => {
    const started = performance.now();
    const sync = request.query.sync_mode;
    const message = request.body;
    const origin = writeOriginOf(request);
    requireOwnSender(request, message.sender, 'sender');
    const written = await deps.write(
      origin,
      TOPICS.groupChatInput,
      { type: 'group_chat.message.received', data: message, source: 'evermemos-api' },
      sync,
    );
    return replyOutcomeOrRequestId(reply, written, async (outcome) => {
      const groupId = conversationIdOf(message);
      const sequence = outcome.result?.['sequence'];
      const formation =
        outcome.duplicate || typeof sequence !== 'number'
          ? undefined
          : await formationOf(
              deps,
              notices,
              spans,
              groupId,
              // as the store measures it: the time in ms, the length in characters (code points)
              {
                seq: sequence,
                createdAt: parseCreateTime(message.create_time)!.getTime(),
                chars: [...message.content].length,
              },
              deps.syncTimeoutMs - (performance.now() - started),
            ).catch((err: unknown) => {
              // The message is stored; only the look at what it closed failed. An outage
              // answers it as one that closed nothing yet (its episode forms all the same),
              // not as a failed write a client would send again.
              if (isUnavailable(err)) return undefined;
              throw err;
            });
      const saved = formation?.memories.map(episodicView) ?? [];
      return {
        status: 'ok',
        message: outcome.duplicate
          ? `Duplicate message: ${message.message_id} is already stored in group ${groupId}; nothing saved`
          : messageOf(formation?.status ?? 'accumulated', saved.length),
        result: {
          saved_memories: saved,
          count: saved.length,
          status_info: formation?.status ?? 'accumulated',
          request_id: written.requestId,
          duplicate: outcome.duplicate,
          group_id: groupId,
          message_id: message.message_id,
          sequence: sequence ?? null,
        },
      };
    });
  });
}

function messageOf(status: Formation['status'], count: number): string {
  if (status === 'extracted') return `Extracted ${count} memories`;
  if (status === 'extracting') return 'Message stored; it closed an episode whose memories are still being extracted';
  return 'Message queued, awaiting boundary detection';
}
