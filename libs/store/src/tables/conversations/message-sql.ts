import type { Queryable } from '../../store.js';

/**
 * What the search index, the episodes and the stats ask of the stored messages, as SQL this
 * folder writes (see conversation-sql.ts for why). The statements these came from were planned
 * and tested as they are: each fragment gives back their text unchanged.
 */

/** A join to the message (`conversation`, `messageId`) of group `group`, as `alias`. */
export const joinMessage = (alias: string, group: string, conversation: string, messageId: string) =>
  `JOIN messages ${alias} ON ${alias}.group_key = ${group} AND ${alias}.conversation_id = ${conversation} AND ${alias}.message_id = ${messageId}`;

/** A join to the message (`conversation`, `messageId`), its group unknown: every shard is asked. */
export const joinMessageAnyGroup = (alias: string, conversation: string, messageId: string) =>
  `JOIN messages ${alias} ON ${alias}.conversation_id = ${conversation} AND ${alias}.message_id = ${messageId}`;

/** The messages of ids `ids` in groups `groups` (both arrays), by id, each as `id` text, locked by `lock`. */
export const messagesById = (groups: string, ids: string, lock: string) =>
  `SELECT id::text AS id FROM messages WHERE group_key = ANY(${groups}) AND id = ANY(${ids}) ORDER BY id ${lock}`;

/** The messages of ids `ids` (an array), each as its id text (`item_id`) and its group. */
export const messageGroups = (ids: string) =>
  `SELECT id::text AS item_id, group_key FROM messages WHERE id = ANY(${ids})`;

/** How many of the conversation's messages meet `also` (SQL: `AND …`, or empty). */
export const messageCount = (conversation: string, also: string) =>
  `(SELECT count(*) FROM messages WHERE conversation_id = ${conversation} ${also})`;

/**
 * The conversation's messages every reader may see (agent-only ones never enter an episode),
 * numbered after `after` (SQL) and, with `through`, up to it, in order: what extraction reads.
 */
export const readableMessagesAfter = (conversation: string, after: string, through?: string) =>
  `SELECT seq, message_id, created_at, length(content) AS chars FROM messages
     WHERE conversation_id = ${conversation} AND audience IS NULL${through === undefined ? '' : ` AND seq <= ${through}`}
       AND seq > ${after}`;

/**
 * Locks (KEY SHARE, in id order) and reads the messages of groups `groups` that have one of the
 * ids `ids` or one of the keys `keys`: what writing their search vectors reads.
 */
export async function lockMessagesByIdOrKey(
  tx: Queryable,
  groups: readonly string[],
  ids: readonly number[],
  keys: ReadonlyArray<{ groupKey: string; conversationId: string; messageId: string }>,
): Promise<Array<{ id: string; group_key: string; conversation_id: string; message_id: string }>> {
  const { rows } = await tx.query<{ id: string; group_key: string; conversation_id: string; message_id: string }>(
    `SELECT m.id::text AS id, m.group_key, m.conversation_id, m.message_id FROM messages m
      WHERE m.group_key = ANY($1::text[])
        AND (m.id = ANY($2::int8[])
             OR (m.group_key, m.conversation_id, m.message_id) IN
                (SELECT g, c, mid FROM unnest($3::text[], $4::text[], $5::text[]) AS t(g, c, mid)))
      ORDER BY m.id FOR KEY SHARE`,
    [groups, ids, keys.map((k) => k.groupKey), keys.map((k) => k.conversationId), keys.map((k) => k.messageId)],
  );
  return rows;
}

/**
 * The next `window` messages in storage order after id `after`, each with its group and whether
 * it was stored less than `settledMs` ago by the database's clock.
 */
export async function messagesStoredAfter(
  q: Queryable,
  after: string,
  window: number,
  settledMs: number,
): Promise<Array<{ id: string; group_key: string; recent: boolean }>> {
  const { rows } = await q.query<{ id: string; group_key: string; recent: boolean }>(
    `SELECT m.id::text AS id, m.group_key, m.stored_at > now() - $3::float8 * interval '1 millisecond' AS recent
     FROM messages m WHERE m.id > $1::int8 ORDER BY m.id LIMIT $2`,
    [after, window, settledMs],
  );
  return rows;
}

/**
 * Up to `limit` (a placeholder) conversations, in id order, holding a message that meets `where`
 * (SQL over `messages`), each with its family.
 */
export const conversationsOfMessagesWhere = (where: string, limit: string) =>
  `SELECT DISTINCT messages.conversation_id, c.source_api FROM messages
     JOIN conversations c ON c.group_key = messages.group_key AND c.id = messages.conversation_id
     WHERE ${where} ORDER BY messages.conversation_id LIMIT ${limit}`;

/** The ids of the agents' summaries memory-service keeps in the conversation's summary channel. */
export async function agentSummaryMessageIds(q: Queryable, conversationId: string): Promise<string[]> {
  const { rows } = await q.query<{ message_id: string }>(
    `SELECT message_id FROM messages WHERE conversation_id = $1 AND metadata->'ms'->>'channel' = 'summary'`,
    [conversationId],
  );
  return rows.map((r) => r.message_id);
}

/** The conversations holding a message that meets `where` (SQL over `messages` with `params`), in id order. */
export async function conversationsOfMessagesMatching(
  q: Queryable,
  where: string,
  params: readonly unknown[],
): Promise<string[]> {
  const { rows } = await q.query<{ conversation_id: string }>(
    `SELECT DISTINCT conversation_id FROM messages WHERE ${where} ORDER BY conversation_id`,
    [...params],
  );
  return rows.map((r) => r.conversation_id);
}

/** Deletes the messages that meet `where` (SQL over `messages` with `params`); returns their keys. */
export async function deleteMessagesMatching(
  tx: Queryable,
  where: string,
  params: readonly unknown[],
): Promise<Array<{ id: number; conversation_id: string; message_id: string; group_key: string }>> {
  const { rows } = await tx.query<{ id: number; conversation_id: string; message_id: string; group_key: string }>(
    `DELETE FROM messages WHERE ${where} RETURNING id, conversation_id, message_id, group_key`,
    [...params],
  );
  return rows;
}
