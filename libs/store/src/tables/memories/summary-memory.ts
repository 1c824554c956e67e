import { databaseNow } from '../../database-clock.js';
import type { Queryable } from '../../store.js';
import { groupKeyOf } from '../conversations/conversation-sql.js';
import { recentConversations } from '../conversations/conversation-sql.js';

export type SummaryStatus = 'processing' | 'completed' | 'failed';

export interface SummaryMemory {
  readonly memory_id: number;
  readonly conversation_id: string;
  /** The conversation's group, the shard column. */
  readonly group_key: string;
  readonly memory_text: string;
  readonly start_sequence: number;
  readonly end_sequence: number;
  readonly base_memory_id: number | null;
  readonly status: SummaryStatus;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly generation_time_ms: number | null;
  readonly attempts: number;
  readonly next_attempt_at: Date | null;
  readonly error: string | null;
}

const COLUMNS = `memory_id, conversation_id, group_key, memory_text, start_sequence, end_sequence, base_memory_id, status,
  created_at, updated_at, generation_time_ms, attempts, next_attempt_at, error`;

/**
 * Claims the next summarization of a conversation: inserts its 'processing' row, based on the
 * latest completed memory, unless there is nothing new since that memory, a failed try is still
 * backing off, or another replica holds the conversation already. The partial unique index makes
 * the claim atomic (no check-then-insert race). Returns the claimed row, or undefined.
 */
export async function claimSummary(
  q: Queryable,
  claim: { conversationId: string; startSequence: number; endSequence: number },
): Promise<SummaryMemory | undefined> {
  const { rows } = await q.query<SummaryMemory>(
    `WITH base AS (
       SELECT memory_id, end_sequence FROM memory
       WHERE conversation_id = $1 AND status = 'completed'
       ORDER BY end_sequence DESC, memory_id DESC LIMIT 1
     ), last AS (
       SELECT status, attempts FROM memory WHERE conversation_id = $1 ORDER BY memory_id DESC LIMIT 1
     )
     INSERT INTO memory (conversation_id, start_sequence, end_sequence, base_memory_id, status, attempts, group_key)
     SELECT $1, $2, $3, (SELECT memory_id FROM base), 'processing',
            COALESCE((SELECT attempts + 1 FROM last WHERE status = 'failed'), 1),
            ${groupKeyOf('$1')}
     WHERE NOT EXISTS (SELECT 1 FROM base WHERE end_sequence >= $3)
       AND NOT EXISTS (SELECT 1 FROM memory WHERE conversation_id = $1 AND status = 'failed' AND next_attempt_at > now())
     ON CONFLICT (conversation_id, group_key) WHERE status = 'processing' DO NOTHING
     RETURNING ${COLUMNS}`,
    [claim.conversationId, claim.startSequence, claim.endSequence],
  );
  return rows[0];
}

/**
 * Starts a claimed row: fixes its base to the latest completed memory as of now. The claim's own
 * view can be a moment old: the previous row's completion may commit while the claim runs (the
 * insert waits for it, its snapshot does not), so only now is the base certain. Returns the row,
 * `superseded` when that latest memory already reaches the row's end (the claim is deleted: the
 * spec writes no empty rows), or undefined when the row is no longer processing (timed out).
 */
export async function startSummary(
  q: Queryable,
  claimed: Pick<SummaryMemory, 'memory_id' | 'conversation_id' | 'group_key'>,
): Promise<SummaryMemory | 'superseded' | undefined> {
  // named by its group, the statement is one shard's (Citus takes no subquery in a RETURNING
  // of a statement over several)
  const { rows } = await q.query<SummaryMemory & { base_end: number | null }>(
    `WITH base AS (
       SELECT memory_id, end_sequence FROM memory
       WHERE group_key = $3 AND conversation_id = $4 AND status = 'completed'
       ORDER BY end_sequence DESC, memory_id DESC LIMIT 1
     )
     UPDATE memory SET base_memory_id = (SELECT memory_id FROM base), updated_at = $2::timestamptz
     WHERE group_key = $3 AND memory_id = $1 AND status = 'processing'
     RETURNING ${COLUMNS}, (SELECT end_sequence FROM base) AS base_end`,
    // the database's clock, as the claim's: a processing row's updated_at is how long it has run (failStuckSummaries)
    [claimed.memory_id, await databaseNow(q), claimed.group_key, claimed.conversation_id],
  );
  const row = rows[0];
  if (!row) return undefined;
  if (row.base_end !== null && row.base_end >= row.end_sequence) {
    await q.query(`DELETE FROM memory WHERE group_key = $2 AND memory_id = $1 AND status = 'processing'`, [
      claimed.memory_id,
      claimed.group_key,
    ]);
    return 'superseded';
  }
  const { base_end: _, ...summary } = row;
  return summary;
}

/** Completes a claimed row; false when it is no longer processing (it timed out meanwhile). */
export async function completeSummary(
  q: Queryable,
  memoryId: number,
  text: string,
  generationTimeMs: number,
  at = new Date(),
): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE memory SET status = 'completed', memory_text = $2, generation_time_ms = $3, updated_at = $4::timestamptz,
       error = NULL
     WHERE memory_id = $1 AND status = 'processing'`,
    [memoryId, text, generationTimeMs, at.toISOString()],
  );
  return rowCount > 0;
}

export async function failSummary(
  q: Queryable,
  memoryId: number,
  error: string,
  retryAt: Date,
  at = new Date(),
): Promise<void> {
  await q.query(
    `UPDATE memory SET status = 'failed', error = $2, next_attempt_at = $3, updated_at = $4::timestamptz
     WHERE memory_id = $1 AND status = 'processing'`,
    [memoryId, error.slice(0, 2000), retryAt.toISOString(), at.toISOString()],
  );
}

/** 'processing' rows older than the timeout belong to a replica that died or hung: free them. */
export async function failStuckSummaries(
  q: Queryable,
  olderThan: Date,
): Promise<Array<{ memory_id: number; conversation_id: string }>> {
  // due at once by the clock the claims compare next_attempt_at with (claimSummary's now())
  const { rows } = await q.query<{ memory_id: number; conversation_id: string }>(
    `UPDATE memory SET status = 'failed', error = 'processing timed out', next_attempt_at = $2::timestamptz,
       updated_at = $2::timestamptz
     WHERE status = 'processing' AND updated_at < $1
     RETURNING memory_id, conversation_id`,
    [olderThan.toISOString(), await databaseNow(q)],
  );
  return rows;
}

/**
 * Conversations whose newest message is past their latest completed summary, with nothing
 * processing and no failed try still backing off: work a lost trigger, a crash or a finished
 * backoff left behind. Only conversations written to recently are looked at.
 */
export async function findSummaryBacklog(
  q: Queryable,
  options: { minLastSeq: number; updatedSince: Date; limit: number },
): Promise<Array<{ conversation_id: string; last_seq: number }>> {
  const { rows } = await q.query<{ conversation_id: string; last_seq: number }>(
    recentConversations(
      '$1',
      '$2',
      (
        c,
      ) => `NOT EXISTS (SELECT 1 FROM memory m WHERE m.group_key = ${c.group} AND m.conversation_id = ${c.id} AND m.status = 'processing')
       AND NOT EXISTS (SELECT 1 FROM memory m WHERE m.group_key = ${c.group} AND m.conversation_id = ${c.id} AND m.status = 'completed' AND m.end_sequence >= ${c.lastSeq})
       AND NOT EXISTS (SELECT 1 FROM memory m WHERE m.group_key = ${c.group} AND m.conversation_id = ${c.id} AND m.status = 'failed' AND m.next_attempt_at > now())`,
      '$3',
    ),
    [options.minLastSeq, options.updatedSince.toISOString(), options.limit],
  );
  return rows;
}

export async function findSummary(q: Queryable, memoryId: number): Promise<SummaryMemory | undefined> {
  const { rows } = await q.query<SummaryMemory>(`SELECT ${COLUMNS} FROM memory WHERE memory_id = $1`, [memoryId]);
  return rows[0];
}

export async function latestCompletedSummary(q: Queryable, conversationId: string): Promise<SummaryMemory | undefined> {
  const { rows } = await q.query<SummaryMemory>(
    `SELECT ${COLUMNS} FROM memory WHERE conversation_id = $1 AND status = 'completed'
     ORDER BY end_sequence DESC, memory_id DESC LIMIT 1`,
    [conversationId],
  );
  return rows[0];
}

/** Every row of a conversation, oldest first: the version chain as it grew. */
export async function listSummaries(q: Queryable, conversationId: string): Promise<SummaryMemory[]> {
  const { rows } = await q.query<SummaryMemory>(
    `SELECT ${COLUMNS} FROM memory WHERE conversation_id = $1 ORDER BY memory_id`,
    [conversationId],
  );
  return rows;
}

/**
 * Deletes a conversation's summaries, which drew on words now gone (the next message summarizes
 * anew); returns how many went. `keepInProgress`: one being made is left to finish (retention);
 * otherwise it goes too (an erasure). One statement for the whole version chain: its
 * self-reference is checked at the statement's end.
 */
export async function deleteSummariesOf(
  tx: Queryable,
  conversationId: string,
  o: { keepInProgress?: boolean } = {},
): Promise<number> {
  const { rowCount } = await tx.query(
    `DELETE FROM memory WHERE conversation_id = $1${o.keepInProgress ? " AND status <> 'processing'" : ''}`,
    [conversationId],
  );
  return rowCount ?? 0;
}
