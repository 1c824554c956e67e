import { databaseNow } from '../database-clock.js';
import type { Queryable, Store } from '../store.js';
import type { ForgetResult } from '../participant/participant.js';
import { lockEpisodes } from '../tables/memories/episodes.js';
import { visibleTo } from '../tables/memberships/conversation-access.js';
import { deleteSearchRows } from '../tables/search/search-rows.js';

export type { ForgetResult };

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

/**
 * The messages of the episode an event id names: an episode by its number, or a memory by its id
 * (its episode). A number is checked here, not cast in SQL, so an id that is neither matches
 * nothing instead of failing the statement.
 */
function episodeMessages(params: unknown[], eventId: string): string {
  const episodeNumber = /^[0-9]{1,18}$/.test(eventId) ? eventId : null;
  const n = params.push(episodeNumber, eventId);
  // the episode's messages by their whole key, its group first (the set-returning unnest in the
  // select list, not a LATERAL join: Citus refuses a lateral beside a distributed table)
  return `(group_key, conversation_id, message_id) IN (
    SELECT e.group_key, e.conversation_id, unnest(e.message_ids) FROM episodes e
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
  const affected = await lockAffectedEpisodes(tx, deleted.rows);
  const episodeIds = affected.map((e) => e.id);
  const episodeGroups = [...new Set(affected.map((e) => e.groupKey))];
  let deletedMemories = 0;
  let deletedMemorySearchRows = 0;
  if (episodeIds.length > 0) {
    const memories = await tx.query<{ id: string; current: boolean; group_key: string }>(
      `DELETE FROM episodic_memories WHERE group_key = ANY($2::text[]) AND episode_id = ANY($1::int8[])
       RETURNING id, superseded_at IS NULL AS current, group_key`,
      [episodeIds, episodeGroups],
    );
    deletedMemories = memories.rows.filter((m) => m.current).length;
    deletedMemorySearchRows = await deleteSearchRows(
      tx,
      'episodic_memory',
      memories.rows.map((m) => ({ groupKey: m.group_key, itemId: m.id })),
    );
  }
  const emptied = affected.filter((e) => e.remaining === null);
  const kept = affected.filter((e): e is AffectedEpisode & { remaining: string[] } => e.remaining !== null);
  if (emptied.length > 0)
    await tx.query('DELETE FROM episodes WHERE group_key = ANY($2::text[]) AND id = ANY($1::int8[])', [
      emptied.map((e) => e.id),
      [...new Set(emptied.map((e) => e.groupKey))],
    ]);
  if (kept.length > 0) await reopenEpisodes(tx, kept);
  return {
    deletedMessages: deleted.rows.length,
    deletedMemories,
    episodesReopened: kept.length,
    episodesDeleted: emptied.length,
    deletedMessageSearchRows,
    deletedMemorySearchRows,
  };
}

interface AffectedEpisode {
  readonly id: string;
  readonly groupKey: string;
  readonly conversationId: string;
  /** The messages it keeps, in its order; null: none. */
  readonly remaining: string[] | null;
}

/**
 * The episodes holding any of the deleted messages, locked. A row lock names its group (Citus
 * locks rows of one shard a statement), so they are read a conversation at a time, conversations
 * in one order and episodes in id order within each, so two deletions cannot deadlock.
 */
async function lockAffectedEpisodes(
  tx: Queryable,
  deleted: readonly { conversation_id: string; message_id: string; group_key: string }[],
): Promise<AffectedEpisode[]> {
  const byConversation = new Map<string, { groupKey: string; gone: Set<string> }>();
  for (const r of deleted) {
    const entry = byConversation.get(r.conversation_id) ?? { groupKey: r.group_key, gone: new Set<string>() };
    entry.gone.add(r.message_id);
    byConversation.set(r.conversation_id, entry);
  }
  const affected: AffectedEpisode[] = [];
  for (const conversationId of [...byConversation.keys()].sort()) {
    const { groupKey, gone } = byConversation.get(conversationId)!;
    const { rows } = await tx.query<{ id: string; message_ids: string[] }>(
      `SELECT id, message_ids FROM episodes
       WHERE group_key = $1 AND conversation_id = $2 AND message_ids && $3::text[]
       ORDER BY id FOR UPDATE`,
      [groupKey, conversationId, [...gone]],
    );
    for (const e of rows) {
      const remaining = e.message_ids.filter((m) => !gone.has(m));
      affected.push({ id: e.id, groupKey, conversationId, remaining: remaining.length > 0 ? remaining : null });
    }
  }
  return affected;
}

/**
 * Gives each episode what it keeps and a new version, due again at once by the clock the
 * extractors claim by (claimEpisodes), not by this process's. Its times become those of the kept
 * messages, looked up by their whole key: a join, not a subquery per episode (Citus refuses one
 * beside unnest()), and the kept ids travel as rows, not as array literals (Citus runs no text[]
 * cast, a STABLE function, on a row of an UPDATE). An episode none of whose kept messages is found
 * gets no times and fails the statement, as before.
 */
async function reopenEpisodes(tx: Queryable, kept: readonly (AffectedEpisode & { remaining: string[] })[]) {
  const now = await databaseNow(tx);
  const rows = kept.flatMap((e) => e.remaining.map((messageId) => ({ e, messageId })));
  await tx.query(
    `WITH kept AS (
       SELECT r.id, r.g, array_agg(r.mid ORDER BY r.o) AS ids
         FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS r(id, g, c, mid, o)
        GROUP BY r.id, r.g),
     span AS (
       SELECT r.id, min(m.created_at) AS first, max(m.created_at) AS last
         FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[]) AS r(id, g, c, mid)
         JOIN messages m ON m.group_key = r.g AND m.conversation_id = r.c AND m.message_id = r.mid
        GROUP BY r.id)
     UPDATE episodes e SET message_ids = k.ids, version = e.version + 1, status = 'pending', attempts = 0,
       next_attempt_at = $5::timestamptz, claimed_until = NULL, error = NULL, updated_at = $5::timestamptz,
       start_time = s.first, end_time = s.last
     FROM kept k LEFT JOIN span s ON s.id = k.id
     WHERE e.group_key = k.g AND e.id = k.id`,
    [
      rows.map((r) => r.e.id),
      rows.map((r) => r.e.groupKey),
      rows.map((r) => r.e.conversationId),
      rows.map((r) => r.messageId),
      now,
    ],
  );
}
