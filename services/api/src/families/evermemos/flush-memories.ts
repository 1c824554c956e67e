import type { ZodApp } from '@memstream/http';
import { AppError } from '@memstream/errors';
import { writeOriginOf } from '@memstream/http';
import { everMemOsDocs } from './docs.js';
import type { Writer } from '@memstream/ingest';
import { replyOutcomeOrRequestId } from './reply-outcome-or-request-id.js';
import type { ExtractionNotices } from './extraction-notices.js';
import { lastSequence, listEpisodesByIds, type Episode, type Store } from '@memstream/store';
import { AcceptedReply, FlushAnswer, FlushMemoriesRequest as Body, TOPICS } from '@memstream/schemas';
import { requireAccess } from '../../shared/access.js';
import type { OpenSpanTracker } from '@memstream/episodes';

/**
 * POST /api/v1/memories/flush: closes the group's open episode now (what is stored by then;
 * messages still in flight join the next one). Closing is a write: an event after the group's
 * earlier writes on its partition, applied by the converter, which the call waits for. The
 * extractor takes the episode on its next sweep; the call also waits for the extraction up to
 * the sync timeout, unless `sync_mode` is false, and returns the memories' episodes. The wait is
 * woken by the extractor's notice (ExtractionWaiter), not by polling the store.
 */
export function registerFlushMemories(
  app: ZodApp,
  deps: { store: Store; write: Writer; syncTimeoutMs: number },
  waiter: ExtractionNotices,
  spans: OpenSpanTracker,
): void {
  const docs = everMemOsDocs.route({
    summary: "Close a group's open episode now and wait for its memories",
    body: Body,
    responses: {
      200: FlushAnswer.meta({ description: 'The episodes closed, and whether their memories are made (status_info)' }),
      202: AcceptedReply,
    },
  });
  app.post('/api/v1/memories/flush', docs, async (request, reply) => {
    const body = request.body;
    const notFound = () => new AppError('RESOURCE_NOT_FOUND', `Group not found: ${body.group_id}`);
    // checked here so a refusal costs no event; the converter decides again on what it applies
    await requireAccess(deps.store, request, body.group_id, 'writer', notFound);
    if ((await lastSequence(deps.store, body.group_id)) === undefined) throw notFound();
    const written = await deps.write(
      writeOriginOf(request),
      TOPICS.groupChatInput,
      { type: 'group_chat.memories.flush_requested', data: { group_id: body.group_id }, source: 'evermemos-api' },
      true,
    );
    spans.forget(body.group_id); // its open span is closed: what this server guessed of it is wrong now
    return replyOutcomeOrRequestId(reply, written, async (outcome) => {
      const ids = (outcome.result?.['episode_ids'] as number[] | undefined) ?? [];
      const waiting = body.sync_mode && ids.length > 0 ? await waiter() : undefined;
      const episodes: Episode[] = waiting
        ? await waiting.untilExtracted(deps.store, ids, deps.syncTimeoutMs)
        : await listEpisodesByIds(deps.store, ids);
      const extracted = episodes.length > 0 && episodes.every((e) => e.status === 'extracted');
      return {
        status: 'ok' as const,
        message: ids.length === 0 ? 'Nothing to flush' : `Closed ${ids.length} episodes`,
        result: {
          group_id: body.group_id,
          status_info: ids.length === 0 ? 'nothing_pending' : extracted ? 'extracted' : 'extracting',
          episodes: episodes.map((e) => ({
            episode_id: e.id,
            start_sequence: e.start_seq,
            end_sequence: e.end_seq,
            message_count: e.message_ids.length,
            close_reason: e.close_reason,
            status: e.status,
          })),
        },
      };
    });
  });
}
