import type { Queryable } from '../../store.js';

/**
 * What another table's statements may ask of a conversation or its messages, as SQL this folder
 * writes: the other folders say what they want, and only this one knows the columns that answer
 * it (the group a row is sharded by, the sequence counter, the soft deletion). Each fragment takes
 * SQL expressions (a placeholder, an alias's column) and keeps the shard column in every join it
 * makes, as the statements it came from did.
 */

/** True when a conversation of that id exists, deleted or not. */
export const conversationExists = (id: string) => `EXISTS (SELECT 1 FROM conversations WHERE id = ${id})`;

/** The conversation's last message's sequence number, -1 when it has none or does not exist. */
export const lastSeqOf = (id: string) => `COALESCE((SELECT next_seq - 1 FROM conversations WHERE id = ${id}), -1)`;

/** The conversation's group (its shard key), to write beside a row of it. */
export const groupKeyOf = (id: string) => `(SELECT c.group_key FROM conversations c WHERE c.id = ${id})`;

/** The family (`source_api`) of the conversation `id` in group `group`. */
export const sourceApiOf = (group: string, id: string) =>
  `(SELECT c.source_api FROM conversations c WHERE c.group_key = ${group} AND c.id = ${id})`;

/** A left join to the conversation `id` of group `group`, as `alias`. */
export const joinConversation = (alias: string, group: string, id: string) =>
  `LEFT JOIN conversations ${alias} ON ${alias}.group_key = ${group} AND ${alias}.id = ${id}`;

/** The groups whose root is a conversation of `family`, each as a row of one column named `as`. */
export const rootGroupsOf = (family: string, as: string) =>
  `SELECT group_key AS ${as} FROM conversations WHERE source_api = '${family}' AND group_id IS NULL`;

/**
 * True when group `group` holds a conversation made at or after `since`, a message written then,
 * or a conversation of another family than `family`: a group retention may not take whole.
 */
export const groupActiveSince = (group: string, since: string, family: string) =>
  `EXISTS (SELECT 1 FROM conversations c WHERE c.group_key = ${group}
                        AND (c.created_at >= ${since} OR c.source_api <> '${family}'
                             OR EXISTS (SELECT 1 FROM messages m
                                        WHERE m.group_key = c.group_key AND m.conversation_id = c.id AND m.created_at >= ${since})))`;

/** The (conversation, message id) of every message `person` sent, as a subquery's rows. */
export const messagesSentBy = (person: string) =>
  `SELECT sent.conversation_id, sent.message_id FROM messages sent WHERE sent.sender_id = ${person}`;

/**
 * Each record with `groupKey`, its conversation's group (its own id when the conversation is not
 * stored), read in a statement of its own: Citus plans no lookup correlated with the rows of a
 * batch beside its CTE, so an import carries the group on each record instead.
 */
export async function withGroups<R extends { conversationId: string }>(q: Queryable, records: readonly R[]) {
  const { rows: found } = await q.query<{ id: string; group_key: string }>(
    'SELECT id, group_key FROM conversations WHERE id = ANY($1::text[])',
    [[...new Set(records.map((r) => r.conversationId))]],
  );
  const groupOf = new Map(found.map((r) => [r.id, r.group_key]));
  return records.map((r) => ({ ...r, groupKey: groupOf.get(r.conversationId) ?? r.conversationId }));
}

/** The group of conversation `id`: its own id unless it is a fork (or has no row yet). */
export const groupOfId = (id: string) => `COALESCE((SELECT group_id FROM conversations WHERE id = ${id}), ${id})`;

/** True when conversation `id` was deleted. */
export const conversationDeleted = (id: string) =>
  `EXISTS (SELECT 1 FROM conversations WHERE id = ${id} AND deleted_at IS NOT NULL)`;

/** The group of `person`'s private chat, as a subquery's row, once something of it is stored. */
export const privateChatGroupOf = (person: string) =>
  `SELECT group_key FROM conversations WHERE group_key = 'private:' || ${person}`;

/** The ids of every conversation of the groups `groups` (a subquery), deleted or not. */
export const conversationsIn = (groups: string) =>
  `SELECT wc.id FROM conversations wc WHERE wc.group_key IN (${groups})`;

/** The ids of the conversations not deleted whose group meets `group` (SQL after `group_key`: `IN (…)`, `= …`). */
export const liveConversationsOf = (group: string) =>
  `SELECT c.id FROM conversations c WHERE c.group_key ${group} AND c.deleted_at IS NULL`;

/**
 * The groups in `groups` (a subquery) that have a conversation of their own id (their root).
 * Grouped, not filtered by `r.id = r.group_key`: the planner took that filter for a rare match and
 * joined every group with every conversation of the groups (7.4 ms at 300 groups, growing with
 * their square, on each user-wide search); grouped, it is one hash join (0.7 ms).
 */
export const groupRootsIn = (groups: string) =>
  `SELECT r.group_key FROM conversations r WHERE r.group_key IN (${groups})
     GROUP BY r.group_key HAVING bool_or(r.id = r.group_key)`;

/**
 * Each conversation of the ids `ids` with its group and whether it was deleted. Where an id names
 * two conversations (a fork's and one another family wrote under its id, docs/store.md), the fork.
 */
export async function conversationGroups(
  q: Queryable,
  ids: readonly string[],
): Promise<Array<{ id: string; group_key: string; deleted: boolean }>> {
  const { rows } = await q.query<{ id: string; group_key: string; deleted: boolean }>(
    `SELECT DISTINCT ON (id) id, group_key, deleted_at IS NOT NULL AS deleted FROM conversations
      WHERE id = ANY($1::text[]) ORDER BY id, group_key = id`,
    [[...ids]],
  );
  return rows;
}

/** A conversation as a sweep's condition sees it: SQL for its group, its id and its last sequence number. */
export interface ConversationColumns {
  readonly group: string;
  readonly id: string;
  readonly lastSeq: string;
}

const SWEPT: ConversationColumns = { group: 'c.group_key', id: 'c.id', lastSeq: 'c.next_seq - 1' };

/**
 * The ids of conversations last written between `idleMs` (a placeholder, in milliseconds) ago and
 * a day before that, that meet `also`, least recently written first, at most `limit`.
 */
export const quietConversations = (idleMs: string, also: (c: ConversationColumns) => string, limit: string) =>
  `SELECT c.id FROM conversations c
     WHERE c.updated_at < now() - make_interval(secs => ${idleMs}::float8 / 1000)
       AND c.updated_at > now() - make_interval(secs => ${idleMs}::float8 / 1000) - interval '1 day'
       AND ${also(SWEPT)}
     ORDER BY c.updated_at LIMIT ${limit}`;

/**
 * Conversations (`conversation_id`, `last_seq`) written since `since` with a last sequence number
 * of at least `minLastSeq`, that meet `also`, least recently written first, at most `limit`.
 */
export const recentConversations = (
  minLastSeq: string,
  since: string,
  also: (c: ConversationColumns) => string,
  limit: string,
) =>
  `SELECT c.id AS conversation_id, c.next_seq - 1 AS last_seq FROM conversations c
     WHERE c.updated_at >= ${since} AND c.next_seq - 1 >= ${minLastSeq}
       AND ${also(SWEPT)}
     ORDER BY c.updated_at
     LIMIT ${limit}`;

/** How many messages the conversations that meet `where` (SQL over their columns) have had, from their counters. */
export const messagesEverIn = (where: string) => `(SELECT sum(next_seq) FROM conversations WHERE ${where})`;

/** Makes a conversation that is its own group (every family's but a memory-service fork). */
export async function insertOwnConversation(
  tx: Queryable,
  c: { id: string; sourceApi: string; metadata: Record<string, unknown> },
): Promise<void> {
  await tx.query('INSERT INTO conversations (id, source_api, metadata, group_key) VALUES ($1, $2, $3::jsonb, $1)', [
    c.id,
    c.sourceApi,
    JSON.stringify(c.metadata),
  ]);
}

/**
 * Marks conversations that are their own groups deleted at `at` (the database's clock, which
 * tells the messages stored after it apart); naming each as its group keeps the update on its shard.
 */
export async function markOwnConversationsDeleted(tx: Queryable, ids: readonly string[], at: string): Promise<void> {
  await tx.query(
    `UPDATE conversations SET deleted_at = $2::timestamptz, updated_at = $2::timestamptz
     WHERE group_key = ANY($1::text[]) AND id = ANY($1::text[]) AND deleted_at IS NULL`,
    [[...ids], at],
  );
}

/** True when the conversation `id` of group `group` was deleted (`gone` names its row). */
export const conversationDeletedIn = (group: string, id: string) =>
  `EXISTS (SELECT 1 FROM conversations gone WHERE gone.group_key = ${group}
         AND gone.id = ${id} AND gone.deleted_at IS NOT NULL)`;

/**
 * Locks the conversations of a group (FOR UPDATE, in id order) and reads them with their deletion
 * time: a purge's first step, a group at a time, as Citus locks the rows of one shard a statement.
 */
export async function lockGroupConversations(
  tx: Queryable,
  group: string,
): Promise<Array<{ id: string; deleted_at: Date | null }>> {
  const { rows } = await tx.query<{ id: string; deleted_at: Date | null }>(
    'SELECT id, deleted_at FROM conversations WHERE group_key = $1 ORDER BY id FOR UPDATE',
    [group],
  );
  return rows;
}

/** The family (`source_api`) of each group's root conversation, by group, for the groups that have one. */
export async function rootFamiliesOf(q: Queryable, groups: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await q.query<{ id: string; source_api: string }>(
    'SELECT id, source_api FROM conversations WHERE group_key = ANY($1::text[]) AND id = group_key',
    [[...groups]],
  );
  return new Map(rows.map((r) => [r.id, r.source_api]));
}
