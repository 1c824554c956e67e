import {
  PRIVATE_CHAT_PREFIX,
  isOthersPrivateChat,
  levelsFrom,
  type AccessLevel,
  type Actor,
  type Standing,
} from '@memstream/schemas';
import type { Queryable } from '../../store.js';
import { arkSessionExists } from '../ark/ark-session-sql.js';
import { hasConversationMeta } from '../conversation-meta/conversation-meta.js';
import { insertFirstOwner } from './membership-rows.js';
import {
  conversationDeleted,
  conversationExists,
  conversationGroups,
  groupOfId,
  groupRootsIn,
  liveConversationsOf,
} from '../conversations/conversation-sql.js';

/** The group of the conversation `$1`. */
const GROUP_OF = groupOfId('$1');

/**
 * The level of `user` on the group of `conversation` (SQL expressions), none when the conversation
 * was deleted. The person a private chat is private to owns it, with or without a row.
 */
const levelOf = (conversation: string, user: string) =>
  `SELECT access_level FROM (
     SELECT 'owner' AS access_level, 0 AS rank WHERE ${groupOfId(conversation)} = '${PRIVATE_CHAT_PREFIX}' || ${user}
     UNION ALL
     SELECT access_level, 1 FROM conversation_memberships WHERE group_id = ${groupOfId(conversation)} AND user_id = ${user}
   ) l
   WHERE NOT ${conversationDeleted(conversation)}
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

/**
 * accessLevelOf for many (conversation, user) pairs, in their order: open streams re-checked
 * together. Two statements, each a plain filter or a join on a shard column, which Citus runs
 * (a subquery per pair over the unnested pairs it refuses): the conversations' groups and
 * deletions, then the levels held on those groups. A fork, not a conversation another family
 * wrote under its id, is the one a pair means (docs/store.md).
 */
export async function accessLevelsOf(
  q: Queryable,
  pairs: ReadonlyArray<{ conversationId: string; userId: string }>,
): Promise<Array<AccessLevel | undefined>> {
  if (pairs.length === 0) return [];
  const ids = [...new Set(pairs.map((p) => p.conversationId))];
  const found = await conversationGroups(q, ids);
  const conversation = new Map(found.map((r) => [r.id, r]));
  // a conversation with no row yet (a claimed id) is a group of its own
  const groupOfPair = (p: (typeof pairs)[number]) => conversation.get(p.conversationId)?.group_key ?? p.conversationId;
  const { rows: held } = await q.query<{ group_id: string; user_id: string; access_level: AccessLevel }>(
    `SELECT m.group_id, m.user_id, m.access_level FROM conversation_memberships m
       JOIN unnest($1::text[], $2::text[]) AS p(g, u) ON m.group_id = p.g AND m.user_id = p.u`,
    [pairs.map(groupOfPair), pairs.map((p) => p.userId)],
  );
  const level = new Map(held.map((r) => [`${r.group_id}\u0000${r.user_id}`, r.access_level]));
  return pairs.map((p) => {
    if (conversation.get(p.conversationId)?.deleted) return undefined;
    const group = groupOfPair(p);
    if (group === `${PRIVATE_CHAT_PREFIX}${p.userId}`) return 'owner';
    return level.get(`${group}\u0000${p.userId}`);
  });
}

/**
 * True when anything is stored under the id in any API family: messages, a session's chunks,
 * metadata, or members. A user may claim only an id that is unused.
 */
export async function conversationInUse(q: Queryable, conversationId: string): Promise<boolean> {
  const { rows } = await q.query<{ used: boolean }>(
    `SELECT ${conversationExists('$1')}
         OR ${arkSessionExists('$1')}
         OR ${hasConversationMeta('$1')}
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
  return `${column} IN (${visibleSet(params, userId, needed)})`;
}

/** The ids visibleTo keeps, as a subquery of one column (a conversation may appear twice). */
function visibleSet(params: unknown[], userId: string, needed: AccessLevel): string {
  const user = params.push(userId);
  const levels = params.push(levelsFrom(needed));
  const groups = `SELECT g.group_id FROM person_groups g WHERE g.user_id = $${user} AND g.access_level = ANY ($${levels}::text[])`;
  return `
    ${liveConversationsOf(`IN (${groups})`)}
    UNION ALL
    SELECT m.group_id FROM (${groups}) m
     WHERE m.group_id NOT IN (${groupRootsIn(groups)})
    UNION ALL
    ${liveConversationsOf(`= '${PRIVATE_CHAT_PREFIX}' || $${user} AND 'owner' = ANY ($${levels}::text[])`)}`;
}

/**
 * The conversation ids visibleTo keeps for the user, read once, or undefined when there are more
 * than `max`: a search then names them in each of its statements instead of working them out in
 * each (their planning alone was a millisecond of a user-wide search, bench:search).
 */
export async function conversationsVisibleTo(
  q: Queryable,
  userId: string,
  max: number,
  needed: AccessLevel = 'reader',
): Promise<string[] | undefined> {
  const params: unknown[] = [];
  const set = visibleSet(params, userId, needed);
  const { rows } = await q.query<{ id: string }>(
    `SELECT DISTINCT v.id FROM (${set}) v(id) LIMIT $${params.push(max + 1)}`,
    params,
  );
  return rows.length > max ? undefined : rows.map((r) => r.id);
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
