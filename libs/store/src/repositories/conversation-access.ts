import {
  PRIVATE_CHAT_PREFIX,
  isOthersPrivateChat,
  levelsFrom,
  type AccessLevel,
  type Actor,
  type Standing,
} from '@memstream/schemas';
import type { Queryable } from '../store.js';
import { insertFirstOwner } from './membership-rows.js';

/** The group a conversation belongs to: its own id unless it is a fork (or has no row yet). */
const groupOf = (conversation: string) =>
  `COALESCE((SELECT group_id FROM conversations WHERE id = ${conversation}), ${conversation})`;
const GROUP_OF = groupOf('$1');

/**
 * The level of `user` on the group of `conversation` (SQL expressions), none when the conversation
 * was deleted. The person a private chat is private to owns it, with or without a row.
 */
const levelOf = (conversation: string, user: string) =>
  `SELECT access_level FROM (
     SELECT 'owner' AS access_level, 0 AS rank WHERE ${groupOf(conversation)} = '${PRIVATE_CHAT_PREFIX}' || ${user}
     UNION ALL
     SELECT access_level, 1 FROM conversation_memberships WHERE group_id = ${groupOf(conversation)} AND user_id = ${user}
   ) l
   WHERE NOT EXISTS (SELECT 1 FROM conversations WHERE id = ${conversation} AND deleted_at IS NOT NULL)
   ORDER BY rank LIMIT 1`;

/** The user's level on the conversation's group, or undefined when they are not a member (or it was deleted): see levelOf. */
export async function accessLevelOf(
  q: Queryable,
  conversationId: string,
  userId: string,
): Promise<AccessLevel | undefined> {
  const { rows } = await q.query<{ access_level: AccessLevel }>(levelOf('$1', '$2'), [conversationId, userId]);
  return rows[0]?.access_level;
}

/** accessLevelOf for many (conversation, user) pairs in one statement, in their order: open streams re-checked together. */
export async function accessLevelsOf(
  q: Queryable,
  pairs: ReadonlyArray<{ conversationId: string; userId: string }>,
): Promise<Array<AccessLevel | undefined>> {
  if (pairs.length === 0) return [];
  const { rows } = await q.query<{ access_level: AccessLevel | null }>(
    `SELECT (${levelOf('p.c', 'p.u')}) AS access_level FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS p(c, u, i) ORDER BY p.i`,
    [pairs.map((p) => p.conversationId), pairs.map((p) => p.userId)],
  );
  return rows.map((r) => r.access_level ?? undefined);
}

/**
 * True when anything is stored under the id in any API family: messages, a session's chunks,
 * metadata, or members. A user may claim only an id that is unused.
 */
export async function conversationInUse(q: Queryable, conversationId: string): Promise<boolean> {
  const { rows } = await q.query<{ used: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM conversations WHERE id = $1)
         OR EXISTS (SELECT 1 FROM ark_sessions WHERE session_id = $1)
         OR EXISTS (SELECT 1 FROM conversation_meta WHERE group_id = $1)
         OR EXISTS (SELECT 1 FROM conversation_memberships WHERE group_id = ${GROUP_OF}) AS used`,
    [conversationId],
  );
  return rows[0]?.used === true;
}

/**
 * Makes the user the owner of a conversation id nobody holds yet. Two users racing for one id
 * are settled by the group's primary key: exactly one row is inserted; returns whether it was
 * theirs (or they already owned it).
 */
export async function claimConversation(q: Queryable, conversationId: string, userId: string): Promise<boolean> {
  if (isOthersPrivateChat(conversationId, userId)) return false;
  await insertFirstOwner(q, GROUP_OF, [conversationId, userId]);
  return (await accessLevelOf(q, conversationId, userId)) === 'owner';
}

/**
 * A WHERE condition limiting `column` (a conversation id) to what the user may reach with at
 * least `needed`, its parameters appended to `params`. For listings and searches across
 * conversations on behalf of a person. Their groups come from person_groups, one shard (the
 * table is distributed by person), and the conversations of those groups by group_key:
 * - every conversation of the groups, unless deleted;
 * - a group's own id while it has no conversation of that id (claimed, nothing written yet), as
 *   a group whose first conversation was deleted is closed to all;
 * - the person's private chat and its forks, theirs with or without a row (not kept in
 *   person_groups: its group is named by the person, so no lookup is needed to find its shard).
 */
export function visibleTo(column: string, params: unknown[], userId: string, needed: AccessLevel = 'reader'): string {
  const user = params.push(userId);
  const levels = params.push(levelsFrom(needed));
  const groups = `SELECT g.group_id FROM person_groups g WHERE g.user_id = $${user} AND g.access_level = ANY ($${levels}::text[])`;
  return `${column} IN (
    SELECT c.id FROM conversations c WHERE c.group_key IN (${groups}) AND c.deleted_at IS NULL
    UNION ALL
    SELECT m.group_id FROM (${groups}) m
     WHERE m.group_id NOT IN (SELECT r.id FROM conversations r WHERE r.group_key IN (${groups}) AND r.id = r.group_key)
    UNION ALL
    SELECT c.id FROM conversations c
     WHERE c.group_key = '${PRIVATE_CHAT_PREFIX}' || $${user} AND 'owner' = ANY ($${levels}::text[]) AND c.deleted_at IS NULL)`;
}

/**
 * A WHERE condition keeping to the rows of `column` (an audience: see migration 0012) that a
 * reader may see: those for everyone (NULL) and those whose audience is one of `audiences`
 * (see audiencesOf in @memstream/auth). An empty list keeps what everyone may see.
 */
export function audienceIn(column: string, params: unknown[], audiences: readonly string[]): string {
  if (audiences.length === 0) return `${column} IS NULL`;
  return `(${column} IS NULL OR ${column} = ANY($${params.push([...audiences])}::text[]))`;
}

/**
 * A caller's standing in a conversation's group: a person's level (undefined when not a member),
 * `unrestricted` for an agent or a write with no actor (the local user, a direct producer).
 */
export async function standingOf(q: Queryable, actor: Actor | undefined, conversationId: string): Promise<Standing> {
  if (actor?.kind !== 'user') return 'unrestricted';
  return accessLevelOf(q, conversationId, actor.id);
}
