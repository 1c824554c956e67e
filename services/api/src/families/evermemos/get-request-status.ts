import type { ZodApp } from '@memstream/http';
import { RequestStatusQuery as Query } from '@memstream/schemas';
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
      200: 'result.status, and for a stored message its sequence number; 404 for an unknown or expired request',
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
      return { status: 'ok', message: 'Request accepted', result: { request_id: requestId, status: 'accepted' } };
    const { outcome } = found;
    return {
      status: 'ok',
      message: `Request ${found.status}`,
      result: {
        request_id: requestId,
        status: found.status,
        kind: outcome.kind,
        group_id: outcome.group_id,
        message_id: outcome.message_id,
        duplicate: outcome.duplicate,
        sequence: outcome.result?.['sequence'] ?? null,
        error: outcome.error_code ? { code: outcome.error_code, message: outcome.error_message } : null,
        updated_at: outcome.created_at.toISOString(),
        episode: found.extraction ?? null,
      },
    };
  });
}
