import type { ZodApp } from '@memstream/http';
import { RequestStatusAnswer, RequestStatusQuery as Query } from '@memstream/schemas';
import { AppError } from '@memstream/errors';
import type { RequestLedger } from '@memstream/fanout';
import { everMemOsDocs } from './docs.js';
import type { Store } from '@memstream/store';
import { readRequestStatus } from '@memstream/ingest';
import { mayAccess } from '../../shared/access.js';

/**
 * GET /api/v1/stats/request?request_id=: where a write is. The store's outcome row is the truth
 * (`stored`, `failed`); before it exists the gateway's accepted marker says `accepted`. A request
 * id is also the event id, so Kafka producers writing to the input topic can ask about theirs.
 */
export function registerGetRequestStatus(app: ZodApp, deps: { store: Store; ledger: RequestLedger }): void {
  const docs = everMemOsDocs.route({
    summary: 'Where a write is: accepted, stored, extracted or failed',
    description:
      'The request id is also the event id, so producers writing the input topic directly can ask about theirs.',
    querystring: Query,
    responses: {
      200: RequestStatusAnswer.meta({
        description: 'result.status, and once applied its outcome; 404 for an unknown or expired request',
      }),
    },
  });
  app.get('/api/v1/stats/request', docs, async (request) => {
    const { request_id: requestId } = request.query;
    const found = await readRequestStatus(deps, requestId, (groupId) => mayAccess(deps.store, request, groupId));
    if (found === undefined)
      throw new AppError(
        'RESOURCE_NOT_FOUND',
        `Request not found: ${requestId} (unknown, or older than the status retention)`,
      );
    if (found.status === 'accepted')
      return {
        status: 'ok' as const,
        message: 'Request accepted',
        result: { request_id: requestId, status: 'accepted' as const },
      };
    const { outcome } = found;
    return {
      status: 'ok' as const,
      message: `Request ${found.status}`,
      result: {
        request_id: requestId,
        status: found.status,
        kind: outcome.kind,
        group_id: outcome.group_id,
        message_id: outcome.message_id,
        duplicate: outcome.duplicate,
        sequence: sequenceOf(outcome.result),
        error: outcome.error_code ? { code: outcome.error_code, message: outcome.error_message } : null,
        updated_at: outcome.created_at.toISOString(),
        episode: found.extraction ? { ...found.extraction, memory_ids: [...found.extraction.memory_ids] } : null,
      },
    };
  });
}

/** A stored message's sequence number; other writes have none. */
function sequenceOf(result: Record<string, unknown> | null): number | null {
  const sequence = result?.['sequence'];
  return typeof sequence === 'number' ? sequence : null;
}
