import type { AccessLevel } from '@memstream/schemas';
import { databaseNow } from '../../database-clock.js';
import type { Queryable } from '../../store.js';
import { visibleTo } from '../memberships/conversation-access.js';
import { levelIn, ownerOf } from '../memberships/membership-sql.js';
import { cancelPendingTransfers } from '../memberships/memory-service-memberships.js';

/** A memory-service conversation as stored, with its owner and, for a person, their level. */
export interface ConversationRecord {
  readonly id: string;
  readonly group_id: string;
  readonly title: string | null;
  readonly metadata: Record<string, unknown>;
  readonly owner_user_id: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly forked_at_conversation_id: string | null;
  readonly forked_at_message_id: string | null;
  readonly last_message_preview: string | null;
  /** The viewer's level; null for a viewer who reaches everything (an agent, the local user). */
  readonly access_level: AccessLevel | null;
}

export interface NewConversation {
  readonly id: string;
  readonly groupId: string;
  readonly title: string | null;
  readonly metadata: Record<string, unknown>;
  readonly fork: {
    readonly fromConversationId: string;
    /** The message just before the fork point, or null when the fork starts before the first one. */
    readonly atMessageId: string | null;
    readonly source: { readonly conversationId: string; readonly seq: number } | null;
  } | null;
}

/**
 * Inserts the conversation unless its id exists (a redelivered create), in any group; true when
 * inserted. The key is (id, group_key), so it alone would let a fork take an id another group
 * holds: the statement looks for the id first. Ids are the API's random UUIDs or ones a client
 * chose under its own group, which the converter refuses when in use (docs/store.md).
 */
export async function insertConversation(q: Queryable, c: NewConversation): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO conversations (id, source_api, group_id, title, metadata, forked_at_conversation_id, forked_at_message_id,
                                fork_source_conversation_id, fork_source_seq, group_key)
     SELECT $1, 'memory-service', $2, $3, $4::jsonb, $5, $6, $7, $8, COALESCE($2, $1)
     WHERE NOT EXISTS (SELECT 1 FROM conversations WHERE id = $1)
     ON CONFLICT (id, group_key) DO NOTHING`,
    [
      c.id,
      c.groupId,
      c.title,
      JSON.stringify(c.metadata),
      c.fork?.fromConversationId ?? null,
      c.fork?.atMessageId ?? null,
      c.fork?.source?.conversationId ?? null,
      c.fork?.source?.seq ?? null,
    ],
  );
  return (rowCount ?? 0) > 0;
}

const RECORD = (viewer: string) => `c.id, c.group_key AS group_id, c.title, c.metadata, c.created_at, c.updated_at,
  c.forked_at_conversation_id, c.forked_at_message_id,
  ${ownerOf('c.group_key')} AS owner_user_id,
  (SELECT left(m.content, 200) FROM messages m WHERE m.group_key = c.group_key AND m.conversation_id = c.id
     AND COALESCE(m.metadata->'ms'->>'channel', 'history') = 'history' AND COALESCE(m.metadata->'ms'->>'visibility', 'user') <> 'agent'
     ORDER BY m.seq DESC LIMIT 1) AS last_message_preview,
  ${viewer === '' ? 'NULL' : levelIn('c.group_key', viewer)} AS access_level`;

/** A conversation that is not deleted, as `viewer` sees it (undefined: a viewer who reaches everything). */
export async function findConversation(
  q: Queryable,
  id: string,
  viewer?: string,
): Promise<ConversationRecord | undefined> {
  const params: unknown[] = [id];
  const viewerSql = viewer === undefined ? '' : `$${params.push(viewer)}`;
  const { rows } = await q.query<ConversationRecord>(
    `SELECT ${RECORD(viewerSql)} FROM conversations c WHERE c.id = $1 AND c.deleted_at IS NULL`,
    params,
  );
  return rows[0];
}

/** The group of a live conversation, or undefined. */
export async function groupOfConversation(q: Queryable, id: string): Promise<string | undefined> {
  const { rows } = await q.query<{ group_id: string }>(
    'SELECT group_key AS group_id FROM conversations WHERE id = $1 AND deleted_at IS NULL',
    [id],
  );
  return rows[0]?.group_id;
}

export interface ListConversationsQuery {
  /** A person: only what they are a member of. Undefined: every memory-service conversation. */
  readonly viewer?: string | undefined;
  readonly after?: string | undefined;
  readonly limit: number;
  readonly query?: string | undefined;
  readonly mode: 'all' | 'roots' | 'latest-fork';
}

/** Conversations in id order after the cursor; `limit + 1` are read to know whether more follow. */
export async function listConversations(
  q: Queryable,
  query: ListConversationsQuery,
): Promise<{ items: ConversationRecord[]; more: boolean }> {
  const params: unknown[] = [];
  const where = [`c.deleted_at IS NULL`, `c.source_api = 'memory-service'`];
  const viewerSql = query.viewer === undefined ? '' : `$${params.push(query.viewer)}`;
  if (query.viewer !== undefined) where.push(visibleTo('c.id', params, query.viewer));
  if (query.after !== undefined) where.push(`c.id > $${params.push(query.after)}`);
  if (query.query !== undefined) {
    const like = `%${query.query.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    where.push(`(c.title ILIKE $${params.push(like)} OR c.metadata::text ILIKE $${params.length})`);
  }
  if (query.mode === 'roots') where.push(`c.forked_at_conversation_id IS NULL`);
  if (query.mode === 'latest-fork') {
    // the most recently updated conversation of each fork tree
    where.push(`NOT EXISTS (SELECT 1 FROM conversations n WHERE n.group_key = c.group_key
      AND n.deleted_at IS NULL AND (n.updated_at, n.id) > (c.updated_at, c.id))`);
  }
  const limit = `$${params.push(query.limit + 1)}`;
  const { rows } = await q.query<ConversationRecord>(
    `SELECT ${RECORD(viewerSql)} FROM conversations c WHERE ${where.join(' AND ')} ORDER BY c.id LIMIT ${limit}`,
    params,
  );
  return { items: rows.slice(0, query.limit), more: rows.length > query.limit };
}

/** Every live conversation of the group, oldest first (the root and its forks). */
export async function listGroupConversations(q: Queryable, groupId: string): Promise<ConversationRecord[]> {
  const { rows } = await q.query<ConversationRecord>(
    `SELECT ${RECORD('')} FROM conversations c WHERE c.group_key = $1 AND c.deleted_at IS NULL ORDER BY c.created_at, c.id`,
    [groupId],
  );
  return rows;
}

/**
 * Soft-deletes every conversation of the group; the number deleted now. The time is the
 * database's: eviction keeps a group that stored a message after its deletion, comparing the
 * messages' stored_at (the database's clock) with deleted_at, so both must be on one clock.
 */
export async function deleteConversationGroup(q: Queryable, groupId: string): Promise<number> {
  const now = await databaseNow(q);
  const { rowCount } = await q.query(
    `UPDATE conversations SET deleted_at = $2::timestamptz, updated_at = $2::timestamptz
     WHERE group_key = $1 AND deleted_at IS NULL`,
    [groupId, now],
  );
  await cancelPendingTransfers(q, [groupId], undefined, now);
  return rowCount ?? 0;
}

/** Sets the title (an agent's summary names the conversation). */
export async function setConversationTitle(q: Queryable, id: string, title: string, at = new Date()): Promise<void> {
  await q.query('UPDATE conversations SET title = $2, updated_at = $3::timestamptz WHERE id = $1', [id, title, at]);
}

/**
 * Titles a conversation that has none (null: never set, or created without one); a title it has
 * is kept. Only for a conversation read as untitled, so an append to a titled one costs nothing.
 */
export async function titleUntitledConversation(q: Queryable, id: string, title: string): Promise<void> {
  await q.query('UPDATE conversations SET title = $2 WHERE id = $1 AND title IS NULL', [id, title]);
}
