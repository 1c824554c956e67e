import { AppError } from '@memstream/errors';
import { unstorableError, unstorablePath, writeOriginOf } from '@memstream/http';
import { arkDocs } from './docs.js';
import type { Writer } from '@memstream/ingest';
import { replyOutcomeOrAcceptedSubject } from './reply-outcome-or-accepted-subject.js';
import { listArkRecords, listArkSessions, type Store } from '@memstream/store';
import {
  ArkListQuery as ListQuery,
  ArkMessageBatch,
  ArkMessagePage,
  ArkSessions,
  ArkStored,
  ArkStoring,
  TOPICS,
} from '@memstream/schemas';
import { audiencesFor, personOf } from '../../shared/access.js';
import type { Halves } from '../../shared/halves.js';
import { requireOwnSender } from '../../shared/sender.js';

/**
 * ARK's message API. A batch goes through Kafka like every write and the call returns 200 once
 * it is stored, so the controller's next GET sees it; past the sync wait it answers 202.
 */
export function registerArkMessages({ writes, reads }: Halves, deps: { store: Store; write: Writer }): void {
  const postDocs = arkDocs.route({
    summary: 'Store a batch of OpenAI chat messages, whole and in order',
    body: ArkMessageBatch,
    // ARK words its own 400s, in the order its service checks (session_id, then messages, then each message)
    parsedByHandler: ['body'],
    responses: {
      200: ArkStored.meta({ description: 'Stored' }),
      202: ArkStoring.meta({ description: 'Storing outlasted REQUEST_SYNC_TIMEOUT_MS; Kafka has the batch' }),
    },
  });
  writes?.post('/messages', postDocs, async (request, reply) => {
    const batch = parseBatch(request.body);
    // A person's role-only turn is stored under their id by the converter; a name must be theirs.
    batch.messages.forEach((m, i) => requireOwnSender(request, m['name'], `messages[${i}].name`));
    const written = await deps.write(
      writeOriginOf(request),
      TOPICS.arkMessages,
      { type: 'ark.messages.received', data: batch, source: 'ark-api' },
      true,
    );
    const subject = { session_id: batch.session_id, count: batch.messages.length };
    return replyOutcomeOrAcceptedSubject(reply, written, subject, (_, requestId) => ({
      status: 'ok' as const,
      ...subject,
      request_id: requestId,
    }));
  });

  const listDocs = arkDocs.route({
    summary: 'Stored messages, oldest first',
    description:
      'With session_id and no limit the whole session; without session_id every session (limit 50 by default).',
    querystring: ListQuery,
    // ARK words its own 400s ("invalid limit: ...")
    parsedByHandler: ['querystring'],
    responses: { 200: ArkMessagePage },
  });
  reads?.get('/messages', listDocs, async (request) => {
    const q = ListQuery.safeParse(request.query);
    if (!q.success)
      throw new AppError(
        'INVALID_PARAMETER',
        `invalid ${q.error.issues[0]!.path.join('.')}: ${q.error.issues[0]!.message}`,
      );
    // PostgreSQL's text cannot hold NUL or unpaired surrogates: a filter holding one is refused, named
    const bad = unstorablePath(q.data);
    if (bad) throw unstorableError(bad, 'query');
    // A session without a limit is read whole: ARK's controller reads history that way.
    const limit = q.data.limit ?? (q.data.session_id === undefined ? 50 : undefined);
    const page = await listArkRecords(deps.store, {
      sessionId: q.data.session_id,
      queryId: q.data.query_id,
      limit,
      offset: q.data.offset,
      visibleTo: personOf(request),
      audiences: audiencesFor(request),
    });
    return {
      messages: page.records.map((r) => ({
        id: r.id,
        timestamp: r.created_at.toISOString(),
        created_at: r.stored_at.toISOString(),
        session_id: r.session_id,
        query_id: r.query_id ?? '',
        message: r.message,
        // 1, 2, 3... over what the read selects, as ARK's service numbers (see listArkRecords)
        sequence: r.sequence,
      })),
      total: page.total,
      limit: limit ?? page.total,
      offset: q.data.offset,
    };
  });

  const sessionsDocs = arkDocs.route({
    summary: 'Sessions with messages (a stream that only relayed chunks is a query, not a session, as in ARK)',
    responses: { 200: ArkSessions },
  });
  reads?.get('/sessions', sessionsDocs, async (request) => ({
    sessions: await listArkSessions(deps.store, { visibleTo: personOf(request) }),
  }));
}

/** The spec's rules, each with a message that names the problem; nothing is published on failure. */
function parseBatch(body: unknown): ArkMessageBatch {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new AppError('INVALID_PARAMETER', 'request body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (b['session_id'] === undefined) throw new AppError('INVALID_PARAMETER', 'session_id is required');
  // ARK's memory service words both cases alike, and its tests compare the text.
  if (!Array.isArray(b['messages'])) throw new AppError('INVALID_PARAMETER', 'messages array is required');
  const parsed = ArkMessageBatch.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const [field, index] = issue.path;
  if (field === 'messages' && typeof index === 'number') {
    throw new AppError('INVALID_PARAMETER', `messages[${index}] must be an object with a string role`);
  }
  throw new AppError('INVALID_PARAMETER', `invalid ${issue.path.join('.') || 'body'}: ${issue.message}`);
}
