import type { Queryable } from '../../store.js';
import { conversationExists, lastSeqOf } from '../conversations/conversation-sql.js';

export interface ArkSessionState {
  readonly exists: boolean;
  readonly completed: boolean;
  /** The last stored message's sequence number, -1 when there is none. */
  readonly lastSeq: number;
}

export async function arkSessionState(q: Queryable, sessionId: string): Promise<ArkSessionState> {
  const { rows } = await q.query<{ conv: boolean; sess: boolean; completed: boolean; last_seq: number }>(
    `SELECT ${conversationExists('$1')} AS conv,
            EXISTS (SELECT 1 FROM ark_sessions WHERE session_id = $1) AS sess,
            EXISTS (SELECT 1 FROM ark_sessions WHERE session_id = $1 AND completed_at IS NOT NULL) AS completed,
            ${lastSeqOf('$1')} AS last_seq`,
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
