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

export interface ArkSessionState {
  readonly exists: boolean;
  readonly completed: boolean;
  /** The last stored message's sequence number, -1 when there is none. */
  readonly lastSeq: number;
}

export async function arkSessionState(q: Queryable, sessionId: string): Promise<ArkSessionState> {
  const { rows } = await q.query<{ conv: boolean; sess: boolean; completed: boolean; last_seq: number }>(
    `SELECT EXISTS (SELECT 1 FROM conversations WHERE id = $1) AS conv,
            EXISTS (SELECT 1 FROM ark_sessions WHERE session_id = $1) AS sess,
            EXISTS (SELECT 1 FROM ark_sessions WHERE session_id = $1 AND completed_at IS NOT NULL) AS completed,
            COALESCE((SELECT next_seq - 1 FROM conversations WHERE id = $1), -1) AS last_seq`,
    [sessionId],
  );
  const r = rows[0]!;
  return { exists: r.conv || r.sess, completed: r.completed, lastSeq: r.last_seq };
}

/** Marks the session's stream complete; false when it already was. */
export async function completeArkSession(q: Queryable, sessionId: string, at = new Date()): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO ark_sessions (session_id, completed_at) VALUES ($1, $2::timestamptz)
     ON CONFLICT (session_id) DO UPDATE SET completed_at = EXCLUDED.completed_at WHERE ark_sessions.completed_at IS NULL
     RETURNING session_id`,
    [sessionId, at],
  );
  return rows.length > 0;
}

/** Keeps relayed chunks (and makes the session known); returns their sequence numbers. */
export async function appendStreamChunks(
  q: Queryable,
  sessionId: string,
  chunks: readonly Record<string, unknown>[],
): Promise<number[]> {
  await q.query('INSERT INTO ark_sessions (session_id) VALUES ($1) ON CONFLICT (session_id) DO NOTHING', [sessionId]);
  const { rows } = await q.query<{ chunk_seq: number }>(
    `INSERT INTO stream_chunks (session_id, chunk)
     SELECT $1, c::jsonb FROM unnest($2::text[]) WITH ORDINALITY AS t(c, ord) ORDER BY ord
     RETURNING chunk_seq`,
    [sessionId, chunks.map((c) => JSON.stringify(c))],
  );
  return rows.map((r) => r.chunk_seq).sort((a, b) => a - b);
}

/**
 * For each (session, chunk number), the number of the session's chunk kept just before it
 * (undefined: none): what a live chunk names so that a reader can tell it missed one (see
 * LiveEvent). One statement for a batch of relays, a probe of the key each.
 */
export async function streamChunksBefore(
  q: Queryable,
  chunks: ReadonlyArray<{ readonly sessionId: string; readonly seq: number }>,
): Promise<Array<number | undefined>> {
  if (chunks.length === 0) return [];
  // an inner join on the shard column, grouped, rather than a subquery per row: Citus plans no
  // correlated subquery beside unnest(); a chunk with nothing before it has no row
  const { rows } = await q.query<{ ord: string; before: number }>(
    `SELECT t.ord, max(c.chunk_seq) AS before
       FROM unnest($1::text[], $2::int8[]) WITH ORDINALITY AS t(session_id, seq, ord)
       JOIN stream_chunks c ON c.session_id = t.session_id AND c.chunk_seq < t.seq
      GROUP BY t.ord`,
    [chunks.map((c) => c.sessionId), chunks.map((c) => c.seq)],
  );
  const before = new Map(rows.map((r) => [Number(r.ord), Number(r.before)]));
  return chunks.map((_, i) => before.get(i + 1));
}

export async function listStreamChunks(
  q: Queryable,
  sessionId: string,
  afterChunkSeq = -1,
): Promise<Array<{ chunk_seq: number; chunk: Record<string, unknown> }>> {
  const { rows } = await q.query<{ chunk_seq: number; chunk: Record<string, unknown> }>(
    'SELECT chunk_seq, chunk FROM stream_chunks WHERE session_id = $1 AND chunk_seq > $2 ORDER BY chunk_seq',
    [sessionId, afterChunkSeq],
  );
  return rows;
}
