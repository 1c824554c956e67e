import type { AccessLevel } from '@memstream/schemas';
import type { Queryable } from '../../store.js';
import { joinConversation } from '../conversations/conversation-sql.js';

/**
 * Every statement that writes `conversation_memberships` (distributed by group) is here, and each
 * writes the same change to `person_groups` (its inverse, distributed by person: migration 0043)
 * in the same statement, so the two never disagree and a read scoped to a person finds their
 * groups on one shard (visibleTo). A purge of whole groups is the one writer elsewhere: the
 * registry's loop deletes both tables' rows of its groups (its lifecycle.ts).
 * `libs/store/test/person-groups.test.ts` compares the table with a recount after each kind of write.
 */

export interface MembershipRecord {
  readonly group_id: string;
  readonly user_id: string;
  readonly access_level: AccessLevel;
  readonly created_at: Date;
}

const RECORD = 'group_id, user_id, access_level, created_at';

/** A CTE named `name` putting the memberships `source` returned into person_groups, their level replacing a stored one. */
const upsertInverse = (name: string, source: string) =>
  `${name} AS (INSERT INTO person_groups (user_id, group_id, access_level)
     SELECT user_id, group_id, access_level FROM ${source}
     ON CONFLICT (user_id, group_id) DO UPDATE SET access_level = EXCLUDED.access_level)`;

/** A CTE named `name` deleting the person_groups rows of the memberships `source` returned. */
const deleteInverse = (name: string, source: string) =>
  `${name} AS (DELETE FROM person_groups WHERE (user_id, group_id) IN (SELECT user_id, group_id FROM ${source}))`;

/** Sets a member's level, adding them if they are not one yet. */
export async function setMembership(
  q: Queryable,
  groupId: string,
  userId: string,
  level: AccessLevel,
): Promise<MembershipRecord> {
  const { rows } = await q.query<MembershipRecord>(
    `WITH m AS (INSERT INTO conversation_memberships (group_id, user_id, access_level) VALUES ($1, $2, $3)
                ON CONFLICT (group_id, user_id) DO UPDATE SET access_level = EXCLUDED.access_level
                RETURNING ${RECORD}),
          ${upsertInverse('inverse', 'm')}
     SELECT ${RECORD} FROM m`,
    [groupId, userId, level],
  );
  return rows[0]!;
}

/** Removes a member, keeping the membership as a removal (its record, no access). True when there was one. */
export async function deleteMembership(q: Queryable, groupId: string, userId: string): Promise<boolean> {
  const { rows } = await q.query<{ n: number }>(
    `WITH gone AS (DELETE FROM conversation_memberships WHERE group_id = $1 AND user_id = $2 RETURNING ${RECORD}),
          kept AS (INSERT INTO conversation_membership_removals (group_id, user_id, access_level, created_at)
                   SELECT ${RECORD} FROM gone),
          ${deleteInverse('inverse', 'gone')}
     SELECT count(*)::int AS n FROM gone`,
    [groupId, userId],
  );
  return rows[0]!.n > 0;
}

/** The group's owner becomes a manager (an ownership transfer, before the new owner is set). */
export async function demoteOwner(q: Queryable, groupId: string): Promise<void> {
  await q.query(
    `WITH m AS (UPDATE conversation_memberships SET access_level = 'manager' WHERE group_id = $1 AND access_level = 'owner'
                RETURNING group_id, user_id, access_level),
          ${upsertInverse('inverse', 'm')}
     SELECT 1`,
    [groupId],
  );
}

/**
 * Makes `$2` the owner of the group `group` (an SQL expression over the statement's parameters)
 * when the group has no member yet; nothing when it has (ON CONFLICT settles two at once).
 */
export async function insertFirstOwner(q: Queryable, group: string, params: [string, string]): Promise<void> {
  await q.query(
    `WITH m AS (INSERT INTO conversation_memberships (group_id, user_id, access_level)
                SELECT ${group}, $2, 'owner'
                WHERE NOT EXISTS (SELECT 1 FROM conversation_memberships WHERE group_id = ${group})
                ON CONFLICT DO NOTHING RETURNING group_id, user_id, access_level),
          ${upsertInverse('inverse', 'm')}
     SELECT 1`,
    params,
  );
}

/**
 * Deletes the person's memberships of groups they do not own (an erasure: a group they own goes
 * whole, by purge), each answered with its group's family (`source_api` of the group's conversation).
 */
export async function deleteSharedMemberships(
  q: Queryable,
  userId: string,
): Promise<Array<{ source_api: string | null }>> {
  const { rows } = await q.query<{ source_api: string | null }>(
    `WITH gone AS (DELETE FROM conversation_memberships WHERE ${sharedWith('$1')} RETURNING group_id, user_id),
          ${deleteInverse('inverse', 'gone')}
     SELECT c.source_api FROM gone ${joinConversation('c', 'gone.group_id', 'gone.group_id')}`,
    [userId],
  );
  return rows;
}

/** The memberships that are the person's without being a group of theirs (SQL, against the table's own name). */
export const sharedWith = (person: string) =>
  `conversation_memberships.user_id = ${person} AND conversation_memberships.access_level <> 'owner'`;

/**
 * An import's memberships, a batch as one jsonb parameter (import.ts): a membership
 * already stored is skipped, with its inverse row. Answers how many it stored per group.
 */
export const IMPORT_MEMBERSHIPS = `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS r("groupId" text, "userId" text, "accessLevel" text, "createdAt" timestamptz)),
     m AS (INSERT INTO conversation_memberships (${RECORD})
           SELECT r."groupId", r."userId", r."accessLevel", r."createdAt" FROM input r
           ON CONFLICT DO NOTHING RETURNING group_id, user_id, access_level),
     ${upsertInverse('inverse', 'm')}
     SELECT group_id AS owner, count(*)::int AS n FROM m GROUP BY group_id`;
