import { databaseNow } from '../database-clock.js';
import type { Queryable, Store } from '../store.js';
import { arrayLiteral, lockEpisodes } from './episodes.js';
import { visibleTo } from './conversation-access.js';
import { deleteSearchRows } from './search-rows.js';

export interface ForgetFilter {
  /** An episode's id, or a memory's id meaning its episode: that episode's messages. */
  readonly eventId?: string | undefined;
  readonly messageId?: string | undefined;
  readonly conversationId?: string | undefined;
  readonly senderId?: string | undefined;
  /** A condition on the messages with one parameter (`sql` given its placeholder): a table's definition of whose they are. */
  readonly matching?: { readonly sql: (param: string) => string; readonly value: unknown } | undefined;
  /** A person's id: only conversations they manage or own are touched. */
  readonly managedBy?: string | undefined;
  /** Only messages whose time (created_at) is before this one: what a retention period expired. */
  readonly before?: Date | undefined;
}

export interface ForgetResult {
  readonly deletedMessages: number;
  /** Current episodic memories removed (their superseded history goes with them). */
  readonly deletedMemories: number;
  /** Episodes that lost some messages and will be extracted again from the rest. */
  readonly episodesReopened: number;
  /** Episodes that lost every message and are gone. */
  readonly episodesDeleted: number;
  /** Search rows removed with the messages (their own) and with the memories (theirs, current or not). */
  readonly deletedMessageSearchRows: number;
  readonly deletedMemorySearchRows: number;
}

/**
 * The messages of the episode an event id names: an episode by its number, or a memory by its id
 * (its episode). A number is checked here, not cast in SQL, so an id that is neither matches
 * nothing instead of failing the statement.
 */
function episodeMessages(params: unknown[], eventId: string): string {
  const episodeNumber = /^[0-9]{1,18}$/.test(eventId) ? eventId : null;
  const n = params.push(episodeNumber, eventId);
  return `(conversation_id, message_id) IN (
    SELECT e.conversation_id, m FROM episodes e CROSS JOIN LATERAL unnest(e.message_ids) AS m
    WHERE e.id = $${n - 1}::int8 OR e.id = (SELECT em.episode_id FROM episodic_memories em WHERE em.id = $${n}::text LIMIT 1))`;
}

/**
 * Deletes the messages matching every given filter, their search rows, and every memory derived
 * from them, in one transaction. An episode that keeps some messages gets a new version and is
 * extracted again without the deleted ones (an extraction running meanwhile is discarded by the
 * version check); an episode left empty is removed. Holds the episode lock of each conversation
 * touched (in id order, so two deletions cannot deadlock), so boundary detection never sees a
 * half-deleted conversation.
 */
export async function forgetMessages(store: Store, filter: ForgetFilter): Promise<ForgetResult> {
  return store.transaction((tx) => forgetMessagesIn(tx, filter));
}

/** forgetMessages inside a transaction the caller holds (the converter records the outcome in it). */
export async function forgetMessagesIn(tx: Queryable, filter: ForgetFilter): Promise<ForgetResult> {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const [column, value] of [
    ['message_id', filter.messageId],
    ['conversation_id', filter.conversationId],
    ['sender_id', filter.senderId],
  ] as const) {
    if (value === undefined) continue;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  }
  if (filter.eventId !== undefined) where.push(episodeMessages(params, filter.eventId));
  if (filter.matching !== undefined) where.push(`(${filter.matching.sql(`$${params.push(filter.matching.value)}`)})`);
  if (filter.before !== undefined) where.push(`created_at < $${params.push(filter.before)}`);
  if (where.length === 0) throw new Error('forgetMessages needs at least one filter');
  if (filter.managedBy !== undefined) where.push(visibleTo('conversation_id', params, filter.managedBy, 'manager'));
  const filterSql = where.join(' AND ');

  const conversations = await tx.query<{ conversation_id: string }>(
    `SELECT DISTINCT conversation_id FROM messages WHERE ${filterSql} ORDER BY conversation_id`,
    params,
  );
  for (const { conversation_id } of conversations.rows) await lockEpisodes(tx, conversation_id);
  const deleted = await tx.query<{ id: number; conversation_id: string; message_id: string; group_key: string }>(
    `DELETE FROM messages WHERE ${filterSql} RETURNING id, conversation_id, message_id, group_key`,
    params,
  );
  if (deleted.rows.length === 0)
    return {
      deletedMessages: 0,
      deletedMemories: 0,
      episodesReopened: 0,
      episodesDeleted: 0,
      deletedMessageSearchRows: 0,
      deletedMemorySearchRows: 0,
    };
  const deletedItemIds = deleted.rows.map((r) => String(r.id));
  const deletedMessageSearchRows = await deleteSearchRows(
    tx,
    'message',
    deleted.rows.map((r) => ({ groupKey: r.group_key, itemId: String(r.id) })),
  );
  // A turn embedded after a deleted one carries its words in its vector: the vector goes now, and
  // the row is left for the indexer's sweep (as an imported row is) to embed again after the turn
  // now before it. Until then the turn ranks as one whose vector has not arrived.
  await tx.query(
    `WITH cleared AS (
       DELETE FROM search_vectors WHERE context_item_id = ANY($1::text[]) AND kind = 'message'
       RETURNING group_key, kind, item_id
     )
     INSERT INTO search_unembedded (group_key, kind, item_id) SELECT group_key, kind, item_id FROM cleared
     ON CONFLICT DO NOTHING`,
    [deletedItemIds],
  );

  // The episodes holding any deleted message, with what they keep, locked before their memories
  // are looked for: an extraction storing an episode's memories holds its row, so this waits for it
  // and then sees (and removes) what it stored, instead of missing memories committed a moment later.
  const affected = await tx.query<{ id: number; remaining: string[] | null }>(
    `WITH gone AS (SELECT * FROM unnest($1::text[], $2::text[]) AS g(c, mid))
     SELECT e.id,
            (SELECT array_agg(x ORDER BY o) FROM unnest(e.message_ids) WITH ORDINALITY AS u(x, o)
             WHERE NOT EXISTS (SELECT 1 FROM gone WHERE gone.c = e.conversation_id AND gone.mid = u.x)) AS remaining
     FROM episodes e
     WHERE EXISTS (SELECT 1 FROM gone WHERE gone.c = e.conversation_id AND gone.mid = ANY(e.message_ids))
     ORDER BY e.id
     FOR UPDATE OF e`,
    [deleted.rows.map((r) => r.conversation_id), deleted.rows.map((r) => r.message_id)],
  );
  const episodeIds = affected.rows.map((r) => r.id);
  let deletedMemories = 0;
  let deletedMemorySearchRows = 0;
  if (episodeIds.length > 0) {
    const memories = await tx.query<{ id: string; current: boolean; group_key: string }>(
      `DELETE FROM episodic_memories WHERE episode_id = ANY($1::int8[])
       RETURNING id, superseded_at IS NULL AS current, group_key`,
      [episodeIds],
    );
    deletedMemories = memories.rows.filter((m) => m.current).length;
    deletedMemorySearchRows = await deleteSearchRows(
      tx,
      'episodic_memory',
      memories.rows.map((m) => ({ groupKey: m.group_key, itemId: m.id })),
    );
  }
  const emptied = affected.rows.filter((r) => r.remaining === null).map((r) => r.id);
  const kept = affected.rows.filter((r) => r.remaining !== null);
  if (emptied.length > 0) await tx.query('DELETE FROM episodes WHERE id = ANY($1::int8[])', [emptied]);
  if (kept.length > 0) {
    // due at once by the clock the extractors claim by (claimEpisodes), not by this process's
    const now = await databaseNow(tx);
    await tx.query(
      `UPDATE episodes e SET message_ids = k.ids::text[], version = e.version + 1, status = 'pending', attempts = 0,
         next_attempt_at = $3::timestamptz, claimed_until = NULL, error = NULL, updated_at = $3::timestamptz,
         start_time = (SELECT min(created_at) FROM messages m WHERE m.conversation_id = e.conversation_id AND m.message_id = ANY(k.ids::text[])),
         end_time = (SELECT max(created_at) FROM messages m WHERE m.conversation_id = e.conversation_id AND m.message_id = ANY(k.ids::text[]))
       FROM unnest($1::int8[], $2::text[]) AS k(id, ids) WHERE e.id = k.id`,
      [kept.map((r) => r.id), kept.map((r) => arrayLiteral(r.remaining!)), now],
    );
  }
  return {
    deletedMessages: deleted.rows.length,
    deletedMemories,
    episodesReopened: kept.length,
    episodesDeleted: emptied.length,
    deletedMessageSearchRows,
    deletedMemorySearchRows,
  };
}
