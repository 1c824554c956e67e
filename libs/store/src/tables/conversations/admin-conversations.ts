import type { Queryable } from '../../store.js';
import { joinOwnedBy, ownedBy, ownerOf } from '../memberships/membership-sql.js';

/** A conversation as the admin API sees it: any family's, deleted or not, with its owner. */
export interface AdminConversationRecord {
  readonly id: string;
  readonly group_id: string;
  readonly source_api: string;
  readonly title: string | null;
  readonly owner_user_id: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly deleted_at: Date | null;
  readonly forked_at_conversation_id: string | null;
  readonly forked_at_message_id: string | null;
  readonly last_message_preview: string | null;
}

const RECORD = `c.id, c.group_key AS group_id, c.source_api, c.title, c.created_at, c.updated_at, c.deleted_at,
  c.forked_at_conversation_id, c.forked_at_message_id,
  ${ownerOf('c.group_key')} AS owner_user_id,
  (SELECT left(m.content, 200) FROM messages m WHERE m.group_key = c.group_key AND m.conversation_id = c.id
     AND COALESCE(m.metadata->'ms'->>'channel', 'history') = 'history' AND m.audience IS NULL
     ORDER BY m.seq DESC LIMIT 1) AS last_message_preview`;

export interface AdminConversationQuery {
  /** Only conversations this person owns. */
  readonly ownerUserId?: string | undefined;
  readonly includeDeleted: boolean;
  readonly onlyDeleted: boolean;
  /** Deleted at or after (only deleted conversations match). */
  readonly deletedAfter?: Date | undefined;
  /** Deleted before (only deleted conversations match). */
  readonly deletedBefore?: Date | undefined;
  readonly after?: string | undefined;
  readonly limit: number;
}

/** Conversations of every person and family in id order after the cursor; `limit + 1` read to know whether more follow. */
export async function adminListConversations(
  q: Queryable,
  query: AdminConversationQuery,
): Promise<{ items: AdminConversationRecord[]; more: boolean }> {
  const params: unknown[] = [];
  const where: string[] = ['true'];
  if (query.onlyDeleted || query.deletedAfter !== undefined || query.deletedBefore !== undefined)
    where.push('c.deleted_at IS NOT NULL');
  else if (!query.includeDeleted) where.push('c.deleted_at IS NULL');
  if (query.deletedAfter !== undefined) where.push(`c.deleted_at >= $${params.push(query.deletedAfter)}`);
  if (query.deletedBefore !== undefined) where.push(`c.deleted_at < $${params.push(query.deletedBefore)}`);
  if (query.ownerUserId !== undefined) where.push(ownedBy('c.group_key', `$${params.push(query.ownerUserId)}`));
  if (query.after !== undefined) where.push(`c.id > $${params.push(query.after)}`);
  const { rows } = await q.query<AdminConversationRecord>(
    `SELECT ${RECORD} FROM conversations c WHERE ${where.join(' AND ')} ORDER BY c.id LIMIT $${params.push(query.limit + 1)}`,
    params,
  );
  return { items: rows.slice(0, query.limit), more: rows.length > query.limit };
}

/** One conversation; a deleted one only when `includeDeleted`. */
export async function adminFindConversation(
  q: Queryable,
  id: string,
  includeDeleted: boolean,
): Promise<AdminConversationRecord | undefined> {
  const { rows } = await q.query<AdminConversationRecord>(
    `SELECT ${RECORD} FROM conversations c WHERE c.id = $1 ${includeDeleted ? '' : 'AND c.deleted_at IS NULL'}`,
    [id],
  );
  return rows[0];
}

/**
 * Brings a soft-deleted group back (the conversation and its forks), as it was: its memberships
 * and messages were never removed. The number of conversations restored (0: none was deleted).
 */
export async function restoreConversationGroup(q: Queryable, groupId: string, at = new Date()): Promise<number> {
  const { rowCount } = await q.query(
    `UPDATE conversations SET deleted_at = NULL, updated_at = $2::timestamptz
     WHERE group_key = $1 AND deleted_at IS NOT NULL`,
    [groupId, at],
  );
  return rowCount ?? 0;
}

/** The conversations of the groups this person owns (the admin search's `userId`). */
export async function conversationsOwnedBy(q: Queryable, userId: string): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `SELECT c.id FROM conversations c ${joinOwnedBy('c.group_key', '$1')}`,
    [userId],
  );
  return rows.map((r) => r.id);
}
