import type { Queryable } from '../../store.js';
import { visibleTo } from '../memberships/conversation-access.js';

/** What a relayed stream holds, counted as ARK's reference service counts it. */
export interface ArkStreamStatistics {
  readonly sessionId: string;
  /** Chunks kept, without the `[DONE]` a completion adds in ARK's service (the caller adds it). */
  readonly chunks: number;
  readonly completed: boolean;
  readonly content: number;
  readonly toolCalls: number;
  readonly finishReason: number;
  readonly unknown: number;
}

// JavaScript's truthiness of a JSON value, which is how ARK's service tests a chunk's fields.
// A missing field is SQL's NULL: COALESCE keeps every test true or false, so NOT works on it.
const truthy = (v: string) => `COALESCE(${v} NOT IN ('null'::jsonb, 'false'::jsonb, '0'::jsonb, '""'::jsonb), false)`;
const CONTENT = truthy(`chunk #> '{choices,0,delta,content}'`);
const TOOL_CALLS = `COALESCE(jsonb_typeof(chunk #> '{choices,0,delta,tool_calls}') = 'array'
  AND jsonb_array_length(chunk #> '{choices,0,delta,tool_calls}') > 0, false)`;
const FINISH = truthy(`chunk #> '{choices,0,finish_reason}'`);

/**
 * Every session with relayed chunks, oldest first, each classed as ARK's reference service does:
 * content first, then tool calls, then a finish reason, else unknown. With `visibleTo`, only the
 * sessions the person may read.
 */
export async function arkStreamStatistics(
  q: Queryable,
  options: { visibleTo?: string | undefined } = {},
): Promise<ArkStreamStatistics[]> {
  const params: unknown[] = [];
  const filter = options.visibleTo === undefined ? '' : `WHERE ${visibleTo('c.session_id', params, options.visibleTo)}`;
  const { rows } = await q.query<{
    session_id: string;
    chunks: string;
    completed: boolean;
    content: string;
    tool_calls: string;
    finish_reason: string;
  }>(
    `SELECT c.session_id,
            count(*) AS chunks,
            bool_or(s.completed_at IS NOT NULL) AS completed,
            count(*) FILTER (WHERE ${CONTENT}) AS content,
            count(*) FILTER (WHERE NOT ${CONTENT} AND ${TOOL_CALLS}) AS tool_calls,
            count(*) FILTER (WHERE NOT ${CONTENT} AND NOT ${TOOL_CALLS} AND ${FINISH}) AS finish_reason
       FROM stream_chunks c LEFT JOIN ark_sessions s ON s.session_id = c.session_id
       ${filter}
      GROUP BY c.session_id
      ORDER BY min(c.chunk_seq)`,
    params,
  );
  return rows.map((r) => {
    const [chunks, content, toolCalls, finishReason] = [r.chunks, r.content, r.tool_calls, r.finish_reason].map(Number);
    return {
      sessionId: r.session_id,
      chunks: chunks!,
      completed: r.completed,
      content: content!,
      toolCalls: toolCalls!,
      finishReason: finishReason!,
      unknown: chunks! - content! - toolCalls! - finishReason!,
    };
  });
}

/**
 * Sessions with relayed chunks; with `visibleTo`, only those the person may read. A session that
 * only stored messages has no stream to purge, even when completed.
 */
export async function listArkStreams(
  q: Queryable,
  options: { visibleTo?: string | undefined } = {},
): Promise<string[]> {
  const params: unknown[] = [];
  const filter = options.visibleTo === undefined ? '' : `WHERE ${visibleTo('session_id', params, options.visibleTo)}`;
  const { rows } = await q.query<{ session_id: string }>(
    `SELECT DISTINCT session_id FROM stream_chunks ${filter} ORDER BY session_id`,
    params,
  );
  return rows.map((r) => r.session_id);
}

/**
 * Forgets a session's relayed stream: its chunks and its completion mark (ARK's purge clears
 * both), so the id can be streamed and completed afresh. Its stored messages stay. Returns the
 * number of chunks removed.
 */
export async function purgeArkStream(q: Queryable, sessionId: string): Promise<number> {
  const { rows } = await q.query<{ n: string }>(
    `WITH gone AS (DELETE FROM stream_chunks WHERE session_id = $1 RETURNING 1),
          mark AS (DELETE FROM ark_sessions WHERE session_id = $1 RETURNING 1)
     SELECT (SELECT count(*) FROM gone) AS n, (SELECT count(*) FROM mark) AS m`,
    [sessionId],
  );
  return Number(rows[0]!.n);
}
