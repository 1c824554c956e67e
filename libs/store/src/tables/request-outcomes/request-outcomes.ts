import type { RequestOutcome } from '@memstream/schemas';
import type { Queryable } from '../../store.js';

export interface StoredRequestOutcome extends RequestOutcome {
  readonly created_at: Date;
}

const COLUMNS =
  'request_id, kind, status, group_id, message_id, duplicate, result, error_code, error_message, created_at';

/**
 * Records outcomes; a request that already has one keeps it (the first delivery's word is the
 * truth, a redelivery would otherwise call the message a duplicate of itself). Each is kept in its
 * group (migration 0035): `groups[i]` when the caller knows it (the event's ordering key, which for
 * a memory-service fork is its root), else the outcome's `group_id`, else the request id. The
 * caller names it rather than the statement looking it up, so recording touches one group's rows
 * and every delivery of a request computes the same key.
 */
export async function recordRequestOutcomes(
  q: Queryable,
  outcomes: readonly RequestOutcome[],
  groups?: readonly string[],
): Promise<void> {
  if (outcomes.length === 0) return;
  await q.query(
    `INSERT INTO request_outcomes (request_id, kind, status, group_id, message_id, duplicate, result, error_code, error_message, group_key)
     SELECT t.id, kind, status, gid, mid, dup, res::jsonb, code, msg, COALESCE(t.g, t.gid, t.id)
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::text[], $8::text[], $9::text[], $10::text[])
       AS t(id, kind, status, gid, mid, dup, res, code, msg, g)
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
      outcomes.map((_, i) => groups?.[i] ?? null),
    ],
  );
}

/**
 * A CTE `name` recording the outcomes `select` yields, with the columns (request_id, kind, status,
 * group_id, message_id, duplicate, result, group_key), as recordRequestOutcomes does: a request
 * that has one keeps it. It returns the request ids recorded now. For a statement that records
 * its requests' outcomes in the same transaction as their writes (the append).
 */
export const recordOutcomesSql = (name: string, select: string) => `${name} AS (
  INSERT INTO request_outcomes (request_id, kind, status, group_id, message_id, duplicate, result, group_key)
  ${select}
  ON CONFLICT (group_key, request_id) DO NOTHING
  RETURNING request_id
)`;

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
