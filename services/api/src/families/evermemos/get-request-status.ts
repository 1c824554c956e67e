import type { FastifyInstance } from 'fastify';
import { RequestStatusQuery as Query } from '@memstream/schemas';
import { AppError } from '@memstream/errors';
import type { RequestLedger } from '@memstream/fanout';
import { parseOrThrow } from '@memstream/http';
import { everMemOsDocs } from './docs.js';
import { episodeOfMessage, findRequestOutcome, memoriesOfMessage, type Store } from '@memstream/store';
import { mayAccess } from '../../shared/access.js';

/**
 * GET /api/v1/stats/request?request_id=: where a write is. The store's outcome row is the truth
 * (`stored`, `failed`); before it exists the gateway's accepted marker says `accepted`. A request
 * id is also the event id, so Kafka producers writing to the input topic can ask about theirs.
 */
export function registerGetRequestStatus(app: FastifyInstance, deps: { store: Store; ledger: RequestLedger }): void {
  const docs = everMemOsDocs.route({
    summary: 'Where a write is: accepted, stored, extracted or failed',
    description:
      'The request id is also the event id, so producers writing the input topic directly can ask about theirs.',
    querystring: Query,
    responses: {
      200: 'result.status, and for a stored message its sequence number; 404 for an unknown or expired request',
    },
  });
  app.get('/api/v1/stats/request', docs, async (request) => {
    const { request_id: requestId } = parseOrThrow(Query, request.query, 'query');
    const outcome = await findRequestOutcome(deps.store, requestId);
    if (outcome) {
      // The request id is the writer's receipt (a random UUID only the caller was given), so its
      // outcome is theirs; what memory formation made of the group is shown only to its readers.
      const readable = outcome.group_id === null || (await mayAccess(deps.store, request, outcome.group_id));
      const extraction = readable ? await extractionOf(deps.store, outcome) : undefined;
      const status = extraction?.status === 'extracted' ? 'extracted' : outcome.status;
      return {
        status: 'ok',
        message: `Request ${status}`,
        result: {
          request_id: requestId,
          status,
          kind: outcome.kind,
          group_id: outcome.group_id,
          message_id: outcome.message_id,
          duplicate: outcome.duplicate,
          sequence: outcome.result?.['sequence'] ?? null,
          error: outcome.error_code ? { code: outcome.error_code, message: outcome.error_message } : null,
          updated_at: outcome.created_at.toISOString(),
          episode: extraction ?? null,
        },
      };
    }
    if (await deps.ledger.isAccepted(requestId)) {
      return { status: 'ok', message: 'Request accepted', result: { request_id: requestId, status: 'accepted' } };
    }
    throw new AppError(
      'RESOURCE_NOT_FOUND',
      `Request not found: ${requestId} (unknown, or older than the status retention)`,
    );
  });
}

/**
 * A stored message's place in memory formation: `extracted` once the episode holding it has its
 * memories (the ids of the current ones), `pending` while the episode waits or retries, and no
 * episode yet while it is open (undefined).
 */
async function extractionOf(
  store: Store,
  outcome: { status: string; kind: string; group_id: string | null; message_id: string | null },
) {
  if (outcome.status !== 'stored' || outcome.kind !== 'message' || !outcome.group_id || !outcome.message_id)
    return undefined;
  const episode = await episodeOfMessage(store, outcome.group_id, outcome.message_id);
  if (!episode) return undefined;
  const extracted = episode.status === 'extracted';
  const memories = extracted ? await memoriesOfMessage(store, outcome.group_id, outcome.message_id) : [];
  return {
    episode_id: episode.id,
    status: extracted ? ('extracted' as const) : ('pending' as const),
    close_reason: episode.close_reason,
    memory_ids: memories.map((m) => m.id),
  };
}
