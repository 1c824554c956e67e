import { visibleTo } from './conversation-access.js';

/**
 * What other folders' statements ask of a group's memberships, as SQL to put inside them. Each
 * takes the group as an expression of the outer statement (its shard column, `c.group_key`), so
 * the membership rows are found on the group's shard, and an alias for the membership row that
 * names no table of the outer statement.
 */

/** The group's owner's id, a scalar subquery (NULL when it has none). */
export const ownerOf = (group: string, alias = 'o') =>
  `(SELECT ${alias}.user_id FROM conversation_memberships ${alias} WHERE ${alias}.group_id = ${group} AND ${alias}.access_level = 'owner')`;

/** True when the group has an owner. */
export const hasOwner = (group: string, alias = 'o') =>
  `EXISTS (SELECT 1 FROM conversation_memberships ${alias} WHERE ${alias}.group_id = ${group} AND ${alias}.access_level = 'owner')`;

/** True when `user` owns the group. */
export const ownedBy = (group: string, user: string, alias = 'o') =>
  `EXISTS (SELECT 1 FROM conversation_memberships ${alias} WHERE ${alias}.group_id = ${group}
      AND ${alias}.access_level = 'owner' AND ${alias}.user_id = ${user})`;

/**
 * An inner join to the owner's membership of the group, when `user` is the owner: a row of the
 * outer statement for each group `user` owns. A join rather than ownedBy's semi-join, so that the
 * statement keeps its plan.
 */
export const joinOwnedBy = (group: string, user: string, alias = 'o') =>
  `JOIN conversation_memberships ${alias} ON ${alias}.group_id = ${group}
     AND ${alias}.user_id = ${user} AND ${alias}.access_level = 'owner'`;

/** `user`'s level on the group, a scalar subquery (NULL when not a member). */
export const levelIn = (group: string, user: string, alias = 'v') =>
  `(SELECT access_level FROM conversation_memberships ${alias} WHERE ${alias}.group_id = ${group} AND ${alias}.user_id = ${user})`;

/**
 * True when `person` (an expression) is a member of the group, as far as `viewer` may know (its
 * parameters appended to `params`; no viewer: anyone's membership counts). `conversation` is the
 * conversation of the group the outer statement reads, for visibleTo.
 *
 * Who the members are is for a conversation's managers (memory-service lists them to nobody
 * else): below that, a membership matches only when it is the owner's, which a listing shows, or
 * the viewer's own, or a filter by name would tell a reader who else is a member.
 */
export function isMemberAsKnownTo(
  group: string,
  conversation: string,
  person: string,
  params: unknown[],
  viewer: string | undefined,
): string {
  const known =
    viewer === undefined
      ? ''
      : `AND (o.access_level = 'owner' OR o.user_id = $${params.push(viewer)} OR ${visibleTo(conversation, params, viewer, 'manager')})`;
  return `EXISTS (SELECT 1 FROM conversation_memberships o WHERE o.group_id = ${group} AND o.user_id = ${person} ${known})`;
}

/** The groups `person` owns, as a subquery's rows (one column): found on the person's shard of person_groups. */
export const groupsOwnedBy = (person: string) =>
  `SELECT group_id FROM person_groups WHERE user_id = ${person} AND access_level = 'owner'`;

/** True when someone other than `person` owns the group. */
export const ownedByAnother = (group: string, person: string, alias = 'o') =>
  `EXISTS (SELECT 1 FROM conversation_memberships ${alias} WHERE ${alias}.group_id = ${group}
                           AND ${alias}.access_level = 'owner' AND ${alias}.user_id <> ${person})`;
