import type { FastifyInstance } from 'fastify';
import { AppError } from '@memstream/errors';
import { unstorableError, unstorablePath } from '@memstream/http';
import type { Writer } from '@memstream/ingest';
import { ArkPurged, ArkPurgeQuery, ArkPurging, TOPICS } from '@memstream/schemas';
import { lastSequence, listArkSessions, type Store } from '@memstream/store';
import { personOf, requireAccess } from '../../shared/access.js';
import { purgeEachManaged } from './purge-each-managed.js';
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
    const purged = await purgeEachManaged(deps.store, request, candidates, (origin, s) =>
      deps.write(
        origin,
        TOPICS.groupChatInput,
        { type: 'group_chat.memories.deleted', data: { group_id: s }, source: 'ark-api' },
        true,
      ),
    );
    if (purged.kind === 'accepted')
      return reply.status(202).send({ status: 'accepted', request_ids: purged.requestIds });
    // a session with nothing stored left counts nothing: its deletion's "nothing matched" carries no count
    const deleted = purged.outcomes.reduce((n, o) => n + Number(o.result?.['deleted_messages'] ?? 0), 0);
    return { message: 'Memory purged', sessions: purged.sessions, deleted_messages: deleted };
  });
}
