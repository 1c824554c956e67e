import type { ZodApp } from '@memstream/http';
import { AppError } from '@memstream/errors';
import { parseOrThrow, writeOriginOf } from '@memstream/http';
import { everMemOsDocs } from './docs.js';
import { everMemOsErrorShape } from './error-shape.js';
import { replyOutcomeOrRequestId } from './reply-outcome-or-request-id.js';
import type { Writer } from '@memstream/ingest';
import type { OpenSpanTracker } from '@memstream/episodes';
import {
  AcceptedReply,
  DeleteMemoriesAnswer,
  DeleteMemoriesBody as Body,
  DeleteMemoriesRequest as Request,
  type DeleteMemoriesFilter as DeleteFilter,
  deleteFilterNames,
  TOPICS,
} from '@memstream/schemas';
import type { Store } from '@memstream/store';
import { personOf, requireAccess } from '../../shared/access.js';

/**
 * DELETE /api/v1/memories: forgets the messages matching every filter given (query string and
 * JSON body merged, the body winning, as EverMemOS's server merges them), their vectors and every
 * memory derived from them; an episode that keeps other messages is extracted again without the
 * deleted ones. 404 when nothing matched; 422 when no filter is left once the "any" values
 * (null, '', "__all__") are taken out; an unknown key is 400, never dropped.
 *
 * A deletion is a write: an event on the group-chat input topic, after the writes before it on
 * the group's partition, applied by the converter; the call waits for the outcome like any write
 * (202 with the request id past the sync wait).
 */
export function registerDeleteMemories(
  app: ZodApp,
  deps: { store: Store; write: Writer },
  spans: OpenSpanTracker,
): void {
  const docs = everMemOsDocs.route({
    summary:
      'Forget messages (by event_id, message_id, group_id, user_id, ANDed), their vectors and the memories made from them',
    description:
      'The filters may come in the query string or a JSON body (the body wins). 422 when every filter is absent, null, "" or "__all__".',
    querystring: Request,
    body: Body,
    // the filters may come in the query or a JSON body (the body wins): merged, then parsed
    parsedByHandler: ['querystring', 'body'],
    responses: {
      200: DeleteMemoriesAnswer.meta({
        description: 'What was forgotten; `filters` names the filters used. 404 when nothing matched',
      }),
      202: AcceptedReply,
      422: 'Every filter is absent, null, "" or "__all__": the error envelope with FastAPI\'s detail list beside it',
    },
  });
  app.delete('/api/v1/memories', docs, async (request, reply) => {
    const body =
      request.body !== null && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};
    const { sync_mode: sync, ...filter } = parseOrThrow(
      Request,
      { ...(request.query as Record<string, unknown>), ...body },
      'filter',
    );
    const data = Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) as DeleteFilter;
    if (Object.keys(data).length === 0) {
      const message =
        'At least one of event_id, message_id, user_id or group_id must be given (not null, "" or "__all__")';
      return reply.status(422).send({
        ...(everMemOsErrorShape({ code: 'INVALID_PARAMETER', statusCode: 422, message }, request) as object),
        // EverMemOS's clients look for FastAPI's validation list on this answer
        detail: [{ type: 'value_error', loc: ['body'], msg: message }],
      });
    }
    // A person forgets only in groups they manage or own: named, a lower level is a 403 (checked
    // here so a refusal costs no event, and again by the converter on what it applies); across
    // groups, the others are simply left out.
    if (filter.group_id !== undefined)
      await requireAccess(
        deps.store,
        request,
        filter.group_id,
        'manager',
        () => new AppError('RESOURCE_NOT_FOUND', 'No memories matched the filter'),
      );
    const written = await deps.write(
      writeOriginOf(request),
      TOPICS.groupChatInput,
      { type: 'group_chat.memories.deleted', data, source: 'evermemos-api' },
      sync,
    );
    // Spans of the groups it reaches lose messages: what this server guessed of them is wrong now.
    // A person's deletion forgets only the group it names, never the whole server's guesses (issue
    // 49); across groups it forgets none: the guesses are this replica's alone, which deletions made
    // through other replicas never reach either, and a stale one costs an answer's `extracting`,
    // never a wrong memory (closing-write.ts).
    if (filter.group_id !== undefined) spans.forget(filter.group_id);
    else if (personOf(request) === undefined) spans.clear();
    return replyOutcomeOrRequestId(reply, written, (outcome) => {
      const r = outcome.result as {
        deleted_messages: number;
        deleted_memories: number;
        episodes_reextracting: number;
        episodes_deleted: number;
      };
      return {
        status: 'ok' as const,
        message: `Deleted ${r.deleted_messages} messages and ${r.deleted_memories} memories`,
        // EverMemOS counts what it deleted in `count` and names the filters it used.
        result: { filters: deleteFilterNames(data), ...r, count: r.deleted_messages + r.deleted_memories },
      };
    });
  });
}
