import type { RequestOutcome } from '@memstream/schemas';
import type { Queryable } from '../store.js';

export interface StoredRequestOutcome extends RequestOutcome {
  readonly created_at: Date;
}

const COLUMNS =
  'request_id, kind, status, group_id, message_id, duplicate, result, error_code, error_message, created_at';

/**
 * The group an outcome is kept in (migration 0035): its conversation's, as the append that stores a
 * message writes it, so a request's every delivery finds the same key.
 */
const OUTCOME_GROUP = 'COALESCE(c.group_key, t.gid, t.id)';

/**
 * Records outcomes; a request that already has one keeps it (the first delivery's word is the
 * truth, a redelivery would otherwise call the message a duplicate of itself).
 */
export async function recordRequestOutcomes(q: Queryable, outcomes: readonly RequestOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await q.query(
    `INSERT INTO request_outcomes (request_id, kind, status, group_id, message_id, duplicate, result, error_code, error_message, group_key)
     SELECT t.id, kind, status, gid, mid, dup, res::jsonb, code, msg, ${OUTCOME_GROUP}
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::text[], $8::text[], $9::text[])
       AS t(id, kind, status, gid, mid, dup, res, code, msg)
       LEFT JOIN conversations c ON c.id = t.gid
     ON CONFLICT (group_key, request_id) DO NOTHING`,
    [
      outcomes.map((o) => o.request_id),
      outcomes.map((o) => o.kind),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.group_id),
      outcomes.map((o) => o.message_id),
      outcomes.map((o) => o.duplicate),
      outcomes.map((o) => (o.result === null ? null : JSON.stringify(o.result))),
      outcomes.map((o) => o.error_code),
      outcomes.map((o) => o.error_message),
    ],
  );
}

export async function findRequestOutcomes(
  q: Queryable,
  requestIds: readonly string[],
): Promise<Map<string, StoredRequestOutcome>> {
  if (requestIds.length === 0) return new Map();
  const { rows } = await q.query<StoredRequestOutcome>(
    `SELECT ${COLUMNS} FROM request_outcomes WHERE request_id = ANY($1::text[])`,
    [[...requestIds]],
  );
  return new Map(rows.map((r) => [r.request_id, r]));
}

export async function findRequestOutcome(q: Queryable, requestId: string): Promise<StoredRequestOutcome | undefined> {
  return (await findRequestOutcomes(q, [requestId])).get(requestId);
}

/** Request status is for polling a recent write, not an audit log: old rows go. */
export async function purgeRequestOutcomes(q: Queryable, olderThan: Date): Promise<number> {
  const { rowCount } = await q.query('DELETE FROM request_outcomes WHERE created_at < $1', [olderThan.toISOString()]);
  return rowCount;
}
