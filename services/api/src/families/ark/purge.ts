import type { FastifyInstance } from 'fastify';
import { AppError } from '@memstream/errors';
import { unstorableError, unstorablePath, writeOriginOf } from '@memstream/http';
import { outcomeError, type Writer } from '@memstream/ingest';
import { ArkPurged, ArkPurgeQuery, ArkPurging, TOPICS } from '@memstream/schemas';
import { lastSequence, listArkSessions, type Store } from '@memstream/store';
import { mayAccess, personOf, requireAccess } from '../../shared/access.js';
import { arkDocs } from './docs.js';

/**
 * DELETE /messages: ARK's memory service purges everything it holds (its tests call it after
 * each case). Here that is a deletion of the stored messages of every ARK session the caller may
 * manage, under the rule every family's deletions follow: a person forgets in the sessions they
 * manage or own; an agent key and the local user, who reach every conversation, in every ARK
 * session; `?session_id=` purges that one only (404 unknown or not theirs, 403 below manager).
 * Each session's deletion is a write through Kafka like EverMemOS's (the converter forgets the
 * messages, their search rows and memories, and decides access again); the call answers once all
 * are applied, 202 with their request ids past the sync wait. Relayed stream chunks stay (they are
 * a query's replay, not memory), as do the sessions themselves, now empty.
 */
export function registerArkPurge(app: FastifyInstance, deps: { store: Store; write: Writer }): void {
  const docs = arkDocs.route({
    summary: "Purge the stored messages of one session, or of every ARK session the caller manages (ARK's purge)",
    querystring: ArkPurgeQuery,
    responses: {
      200: ArkPurged,
      202: ArkPurging.meta({ description: 'Purging outlasted REQUEST_SYNC_TIMEOUT_MS: the deletions Kafka has' }),
    },
  });
  app.delete('/messages', docs, async (request, reply) => {
    const q = ArkPurgeQuery.safeParse(request.query ?? {});
    if (!q.success)
      throw new AppError(
        'INVALID_PARAMETER',
        `invalid ${q.error.issues[0]!.path.join('.')}: ${q.error.issues[0]!.message}`,
      );
    // PostgreSQL's text cannot hold NUL or unpaired surrogates: such an id names no session, and is refused, named
    const bad = unstorablePath(q.data);
    if (bad) throw unstorableError(bad, 'query');
    const sessionId = q.data.session_id;
    const notFound = () => new AppError('RESOURCE_NOT_FOUND', `session ${sessionId} not found`);
    if (sessionId !== undefined) {
      if ((await lastSequence(deps.store, sessionId)) === undefined) throw notFound();
      await requireAccess(deps.store, request, sessionId, 'manager', notFound);
    }
    const candidates =
      sessionId !== undefined ? [sessionId] : await listArkSessions(deps.store, { visibleTo: personOf(request) });
    const sessions: string[] = [];
    for (const s of candidates) if (await mayAccess(deps.store, request, s, 'manager')) sessions.push(s);
    const origin = writeOriginOf(request);
    const written = await Promise.all(
      sessions.map((s) =>
        deps.write(
          origin,
          TOPICS.groupChatInput,
          { type: 'group_chat.memories.deleted', data: { group_id: s }, source: 'ark-api' },
          true,
        ),
      ),
    );
    if (written.some((w) => w.kind === 'accepted'))
      return reply.status(202).send({ status: 'accepted', request_ids: written.map((w) => w.requestId) });
    let deleted = 0;
    for (const w of written) {
      if (w.kind !== 'done') continue;
      // A session with nothing stored left is purged already: the deletion's "nothing matched" is no error here.
      if (w.outcome.status === 'failed' && w.outcome.error_code !== 'RESOURCE_NOT_FOUND') throw outcomeError(w.outcome);
      deleted += Number(w.outcome.result?.['deleted_messages'] ?? 0);
    }
    return { message: 'Memory purged', sessions, deleted_messages: deleted };
  });
}
