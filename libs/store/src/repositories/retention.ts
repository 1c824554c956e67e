import type { Queryable } from '../store.js';
import { forgetMessagesIn } from './forget.js';
import { purgeConversationGroups } from './purge-conversations.js';

/**
 * The database side of retention, as batches the retention job runs one transaction at a time
 * (retention-runner.ts). Each batch finds what is still older than its cutoff, so a batch redone
 * after a crash removes nothing twice. What each kind is, and its age: docs/your-users-data.md.
 */

/** What the retention job removes, by kind (the names of the settings, RETENTION_*). */
export const RETENTION_KINDS = ['messages', 'memories', 'summaries', 'kaosEvents', 'arkSessions', 'deleted'] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

/** What a run removed or rebuilt, per table; numbers only. */
export interface RetentionCounts {
  messages: number;
  /** Search rows and their vectors, of messages and of memories. */
  searchRows: number;
  episodesRebuilt: number;
  episodes: number;
  episodicMemories: number;
  summaries: number;
  kaosEvents: number;
  arkSessions: number;
  conversationGroups: number;
}

export function noRetentionCounts(): RetentionCounts {
  return {
    messages: 0,
    searchRows: 0,
    episodesRebuilt: 0,
    episodes: 0,
    episodicMemories: 0,
    summaries: 0,
    kaosEvents: 0,
    arkSessions: 0,
    conversationGroups: 0,
  };
}

export function addRetentionCounts(a: RetentionCounts, b: Partial<RetentionCounts>): RetentionCounts {
  const sum = { ...a };
  for (const key of Object.keys(sum) as (keyof RetentionCounts)[]) sum[key] += b[key] ?? 0;
  return sum;
}

/**
 * Which conversations a pass covers: every one (the setting's period), or those whose metadata
 * (their own, or their group's root, so forks follow the conversation they came from) carries
 * this override under the key `retention`.
 */
export type RetentionScope = { readonly override?: string | undefined };

/** The metadata key of the per-conversation override. */
export const RETENTION_METADATA_KEY = 'retention';

function inScope(column: string, params: unknown[], scope: RetentionScope): string {
  if (scope.override === undefined) return 'TRUE';
  const n = params.push(scope.override);
  return `${column} IN (SELECT c.id FROM conversations c LEFT JOIN conversations r ON r.id = c.group_id
    WHERE c.metadata->>'${RETENTION_METADATA_KEY}' = $${n} OR r.metadata->>'${RETENTION_METADATA_KEY}' = $${n})`;
}

/** The distinct overrides stored in conversations' metadata (valid or not: the caller checks them). */
export async function retentionOverrides(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ v: string }>(
    `SELECT DISTINCT metadata->>'${RETENTION_METADATA_KEY}' AS v FROM conversations
     WHERE metadata ? '${RETENTION_METADATA_KEY}' AND jsonb_typeof(metadata->'${RETENTION_METADATA_KEY}') = 'string'
     ORDER BY 1`,
  );
  return rows.map((r) => r.v);
}

export interface RetentionBatch {
  readonly counts: Partial<RetentionCounts>;
  /** False while this pass may have more to do (run it again). */
  readonly finished: boolean;
  /** Conversations removed whole, whose response streams (outside the database) are to be discarded. */
  readonly conversationIds: readonly string[];
  /** Where the next batch of this pass starts (for a pass that walks conversations in order). */
  readonly after?: string | undefined;
}

/**
 * Messages (and, in KAOS sessions, events) older than the cutoff, in up to `batchSize`
 * conversations, with the cascade of an erasure: search rows and vectors go, the episodes holding
 * them are extracted again from what is left (their memories removed now) or removed when nothing
 * is left, and the conversation's rolling summaries, which drew on those words, are removed (the
 * next message summarizes anew). `kaosOnly` limits it to KAOS sessions (RETENTION_KAOS_EVENTS: an
 * event and the message it became are one thing said, and they go together).
 */
export async function expireMessages(
  tx: Queryable,
  o: { cutoff: Date; scope: RetentionScope; batchSize: number; kaosOnly?: boolean; after?: string | undefined },
): Promise<RetentionBatch> {
  // Conversations in id order from where the last batch stopped, each probed on its (conversation,
  // time) index: a batch costs what it finds, not a scan of every old message still to go.
  const params: unknown[] = [o.cutoff, o.batchSize, o.after ?? ''];
  const kaos = o.kaosOnly ? 'AND c.id IN (SELECT conversation_id FROM kaos_sessions)' : '';
  // Message retention takes the events that became messages; tool and delegation events are no
  // messages and go only with RETENTION_KAOS_EVENTS.
  const events = o.kaosOnly ? '' : `AND e.event_type IN ('user_message', 'agent_response')`;
  const { rows } = await tx.query<{ conversation_id: string }>(
    `SELECT c.id AS conversation_id FROM conversations c
     WHERE c.id > $3 ${kaos} AND ${inScope('c.id', params, o.scope)}
       AND (EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.created_at < $1)
            OR EXISTS (SELECT 1 FROM kaos_events e WHERE e.conversation_id = c.id AND e.occurred_at < $1 ${events}))
     ORDER BY c.id LIMIT $2`,
    params,
  );
  const counts = noRetentionCounts();
  for (const { conversation_id: conversationId } of rows) {
    const forgotten = await forgetMessagesIn(tx, { conversationId, before: o.cutoff });
    counts.searchRows += forgotten.deletedMessageSearchRows + forgotten.deletedMemorySearchRows;
    counts.messages += forgotten.deletedMessages;
    counts.episodicMemories += forgotten.deletedMemories;
    counts.episodesRebuilt += forgotten.episodesReopened;
    counts.episodes += forgotten.episodesDeleted;
    const gone = await tx.query(
      `DELETE FROM kaos_events e WHERE e.conversation_id = $1 AND e.occurred_at < $2 ${events}`,
      [conversationId, o.cutoff],
    );
    counts.kaosEvents += gone.rowCount ?? 0;
    if (forgotten.deletedMessages > 0) {
      // one statement for the whole version chain: its self-reference is checked at the statement's end
      const summaries = await tx.query(`DELETE FROM memory WHERE conversation_id = $1 AND status <> 'processing'`, [
        conversationId,
      ]);
      counts.summaries += summaries.rowCount ?? 0;
    }
  }
  return {
    counts,
    finished: rows.length < o.batchSize,
    conversationIds: [],
    after: rows.at(-1)?.conversation_id,
  };
}

/** Episodic memories made before the cutoff (every version), with their search rows and vectors. */
export async function expireMemories(
  tx: Queryable,
  o: { cutoff: Date; scope: RetentionScope; batchSize: number },
): Promise<RetentionBatch> {
  const params: unknown[] = [o.cutoff, o.batchSize];
  const { rows } = await tx.query<{ id: string; current: boolean }>(
    `DELETE FROM episodic_memories WHERE id IN (
       SELECT id FROM episodic_memories WHERE created_at < $1 AND ${inScope('conversation_id', params, o.scope)}
       ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING id, superseded_at IS NULL AS current`,
    params,
  );
  const searchRows = await tx.query(
    `DELETE FROM search_items WHERE kind = 'episodic_memory' AND item_id = ANY($1::text[])`,
    [rows.map((r) => r.id)],
  );
  return {
    counts: { episodicMemories: rows.length, searchRows: searchRows.rowCount ?? 0 },
    finished: rows.length < o.batchSize,
    conversationIds: [],
  };
}

/**
 * Rolling summaries made before the cutoff (a summary being made is left to finish). A newer
 * summary built on a removed one keeps its text and loses only the link: its chain starts there.
 */
export async function expireSummaries(
  tx: Queryable,
  o: { cutoff: Date; scope: RetentionScope; batchSize: number },
): Promise<RetentionBatch> {
  const params: unknown[] = [o.cutoff, o.batchSize];
  const { rows } = await tx.query<{ memory_id: string }>(
    `SELECT memory_id FROM memory
     WHERE created_at < $1 AND status <> 'processing' AND ${inScope('conversation_id', params, o.scope)}
     ORDER BY memory_id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    params,
  );
  const ids = rows.map((r) => r.memory_id);
  await tx.query(
    'UPDATE memory SET base_memory_id = NULL WHERE base_memory_id = ANY($1::int8[]) AND NOT (memory_id = ANY($1::int8[]))',
    [ids],
  );
  const gone = await tx.query('DELETE FROM memory WHERE memory_id = ANY($1::int8[])', [ids]);
  return { counts: { summaries: gone.rowCount ?? 0 }, finished: rows.length < o.batchSize, conversationIds: [] };
}

/**
 * ARK sessions with no activity since the cutoff (no message said, no chunk relayed, not created
 * or completed), removed whole with everything made from them (purgeConversationGroups).
 */
export async function expireArkSessions(
  tx: Queryable,
  o: { cutoff: Date; batchSize: number },
): Promise<RetentionBatch> {
  const { rows } = await tx.query<{ session_id: string }>(
    `SELECT s.session_id FROM (
       SELECT id AS session_id FROM conversations WHERE source_api = 'ark' AND group_id IS NULL
       UNION SELECT session_id FROM ark_sessions) s
     WHERE NOT EXISTS (SELECT 1 FROM conversations c WHERE COALESCE(c.group_id, c.id) = s.session_id
                        AND (c.created_at >= $1 OR c.source_api <> 'ark'
                             OR EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.created_at >= $1)))
       AND NOT EXISTS (SELECT 1 FROM ark_sessions a WHERE a.session_id = s.session_id
                        AND (a.created_at >= $1 OR a.completed_at >= $1))
       AND NOT EXISTS (SELECT 1 FROM stream_chunks k WHERE k.session_id = s.session_id AND k.created_at >= $1)
     ORDER BY 1 LIMIT $2`,
    [o.cutoff, o.batchSize],
  );
  const purged = await purgeConversationGroups(
    tx,
    rows.map((r) => r.session_id),
  );
  return {
    counts: {
      arkSessions: rows.length,
      messages: purged.counts.messages,
      searchRows: purged.counts.searchItems,
      episodes: purged.counts.episodes,
      episodicMemories: purged.counts.episodicMemories,
      summaries: purged.counts.summaries,
    },
    finished: rows.length < o.batchSize,
    conversationIds: purged.conversationIds,
  };
}
