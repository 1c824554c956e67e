import type { Queryable } from '../../store.js';
import { audienceIn, visibleTo } from '../memberships/conversation-access.js';

/** A message as ARK's `GET /messages` returns it: the OpenAI message exactly as it was posted. */
export interface ArkRecord {
  readonly id: number;
  readonly seq: number;
  readonly session_id: string;
  readonly query_id: string | null;
  readonly created_at: Date;
  readonly stored_at: Date;
  readonly message: Record<string, unknown>;
}

/** A record of a listing, with its position from 1 among what the listing selected (see listArkRecords). */
export interface ArkListedRecord extends ArkRecord {
  readonly sequence: number;
}

// Messages written by other APIs have no original OpenAI message; they read as {role, content}.
const RECORD = `id, seq, conversation_id AS session_id, metadata->>'query_id' AS query_id, created_at, stored_at,
  COALESCE(metadata->'message', jsonb_build_object('role', role, 'content', content)) AS message`;

/**
 * One session's messages in order (all of them when `limit` is undefined: ARK's controller reads
 * history without a limit), or every ARK session's, in storage order.
 *
 * `sequence` numbers the records ARK's way, 1, 2, 3... in the listing's order, counted over
 * everything the filters select before the page is cut: ARK's service numbers its one list from 1
 * and starts again after a purge, and ark-api sorts each answer by it. Counting at read time over
 * what remains needs no counter to keep, and every replica counts the same rows.
 */
export async function listArkRecords(
  q: Queryable,
  query: {
    sessionId?: string | undefined;
    queryId?: string | undefined;
    limit: number | undefined;
    offset: number;
    visibleTo?: string | undefined;
    /** Agent-only content the reader may see (see audienceIn). Unset: all of it. */
    audiences?: readonly string[] | undefined;
  },
): Promise<{ records: ArkListedRecord[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.sessionId !== undefined) {
    params.push(query.sessionId);
    where.push(`conversation_id = $${params.length}`);
  } else {
    where.push(`source_api = 'ark'`);
  }
  if (query.queryId !== undefined) {
    params.push(query.queryId);
    where.push(`metadata->>'query_id' = $${params.length}`);
  }
  if (query.visibleTo !== undefined) where.push(visibleTo('conversation_id', params, query.visibleTo));
  if (query.audiences !== undefined) where.push(audienceIn('audience', params, query.audiences));
  const filter = `WHERE ${where.join(' AND ')}`;
  const order = query.sessionId !== undefined ? 'seq' : 'id';
  const total = await q.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM messages ${filter}`, params);
  params.push(query.limit ?? null, query.offset);
  const { rows } = await q.query<ArkListedRecord>(
    `SELECT ${RECORD}, row_number() OVER (ORDER BY ${order}) AS sequence
     FROM messages ${filter} ORDER BY ${order} LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  return { records: rows, total: total.rows[0]?.n ?? 0 };
}

/**
 * A session's messages numbered after `afterSeq`, in order: what a live stream has not sent yet.
 * By sequence number, never by position: a deletion leaves gaps in the numbering.
 */
export async function arkRecordsAfter(
  q: Queryable,
  sessionId: string,
  afterSeq: number,
  audiences?: readonly string[] | undefined,
): Promise<ArkRecord[]> {
  const params: unknown[] = [sessionId, afterSeq];
  const shown = audiences === undefined ? '' : `AND ${audienceIn('audience', params, audiences)}`;
  const { rows } = await q.query<ArkRecord>(
    `SELECT ${RECORD} FROM messages WHERE conversation_id = $1 AND seq > $2 ${shown} ORDER BY seq`,
    params,
  );
  return rows;
}

/**
 * Sessions with ARK messages, oldest first; with `visibleTo`, only those the person may read. A
 * stream that only relayed chunks is named after a query, not a session: ARK's service lists
 * sessions from its messages alone.
 */
export async function listArkSessions(
  q: Queryable,
  options: { visibleTo?: string | undefined } = {},
): Promise<string[]> {
  const params: unknown[] = [];
  const filter = options.visibleTo === undefined ? '' : `WHERE ${visibleTo('id', params, options.visibleTo)}`;
  const { rows } = await q.query<{ id: string }>(
    `SELECT id FROM conversations ${filter ? `${filter} AND` : 'WHERE'} source_api = 'ark' ORDER BY created_at, id`,
    params,
  );
  return rows.map((r) => r.id);
}
