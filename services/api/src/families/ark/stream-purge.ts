import type { FastifyInstance } from 'fastify';
import type { Writer } from '@memstream/ingest';
import { ArkStreamsPurged, ArkStreamsPurging, TOPICS } from '@memstream/schemas';
import { listArkStreams, type Store } from '@memstream/store';
import { personOf } from '../../shared/access.js';
import { purgeEachManaged } from './purge-each-managed.js';
import { arkDocs } from './docs.js';

/**
 * DELETE /stream: ARK's reference service forgets every relayed stream (its hurl test does it
 * between cases). Here, the streams of the sessions the caller manages, under the rule of ARK's
 * message purge (docs/ark.md, 'Purge and access'): a person purges the streams of sessions they
 * manage or own, an agent key and the local user every stream. Each session's purge is a write
 * through Kafka on the session's partition, after the chunks relayed before it; the converter
 * decides access again. Stored messages stay; so do streams the caller only reads or writes.
 */
export function registerArkStreamPurge(app: FastifyInstance, deps: { store: Store; write: Writer }): void {
  const docs = arkDocs.route({
    summary: "Purge the relayed streams of every session the caller manages (ARK's stream purge)",
    responses: {
      200: ArkStreamsPurged,
      202: ArkStreamsPurging.meta({ description: 'Purging outlasted REQUEST_SYNC_TIMEOUT_MS: the purges Kafka has' }),
    },
  });
  app.delete('/stream', docs, async (request, reply) => {
    const candidates = await listArkStreams(deps.store, { visibleTo: personOf(request) });
    const purged = await purgeEachManaged(deps.store, request, candidates, (origin, s) =>
      deps.write(
        origin,
        TOPICS.arkMessages,
        { type: 'ark.stream.purged', data: { session_id: s }, source: 'ark-api' },
        true,
      ),
    );
    if (purged.kind === 'accepted')
      return reply.status(202).send({ status: 'accepted', request_ids: purged.requestIds });
    return { status: 'success', message: 'Stream data purged', sessions: purged.sessions };
  });
}
