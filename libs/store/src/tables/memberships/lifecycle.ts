import type { Queryable } from '../../store.js';
import { EVICTED_WITH_GROUP, iso, keyOne, keyTwo, type LifecycleParticipant } from '../../participant/participant.js';
import { deleteSharedMemberships, sharedWith } from './membership-rows.js';
import { addCount, type ErasureCounts, familyOf, noErasureCounts } from '../../participant/erasure-counts.js';
import { dueByGroup } from '../../participant/due-by-group.js';
import { joinConversation } from '../conversations/conversation-sql.js';
import { membershipImport, membershipRemovalImport, ownershipTransferImport } from './import.js';

/**
 * Who may read or write a group. Outside the person's groups, their own memberships (a share)
 * are theirs: others grant them at will, so the final check of an erasure removes them again. An
 * owner's membership is never among them: a group the person owns is theirs whole.
 */
export const memberships: LifecycleParticipant = {
  table: 'conversation_memberships',
  within: { group: 'group_id' },
  named: sharedWith,
  purge: { by: 'groups', column: 'group_id', counts: 'memberships', stage: 'leaves' },
  notRetained: 'access, kept while it is granted: it goes with its group, or when revoked (the record below)',
  notEvicted: 'access is not soft-deleted: it goes with its group, or when revoked (the record below)',
  export: {
    kind: 'membership',
    columns: () => `group_id AS "groupId", user_id AS "userId", access_level AS "accessLevel",
      ${iso('created_at')} AS "createdAt"`,
    keys: ['group_id', 'user_id'],
    keyOf: keyTwo('groupId', 'userId'),
  },
  import: membershipImport,
  erase: {
    heldBack: 3,
    writtenByOthers: true,
    named: async (tx, userId) => byFamily(await deleteSharedMemberships(tx, userId), 'memberships'),
  },
};

/**
 * The inverse of the memberships, by person (migration 0043): the groups a read scoped to a
 * person reaches, found on one shard. Written with the memberships (membership-rows.ts), so the
 * erasure of a person's shared memberships takes their rows here too.
 */
export const personGroups: LifecycleParticipant = {
  table: 'person_groups',
  within: { group: 'group_id' },
  // uncounted: a copy of the memberships, which the counts name
  purge: { by: 'groups', column: 'group_id', stage: 'leaves' },
  notExported: 'a copy of the memberships by person: their export holds them, and importing them makes the rows again',
  notRetained: 'kept while its membership is',
  notEvicted: 'kept while its membership is, which goes with its group',
};

/** The record of memberships that ended (who had which level until when): a lost one names the person. */
export const membershipRemovals: LifecycleParticipant = {
  table: 'conversation_membership_removals',
  within: { group: 'group_id' },
  named: (person) => `conversation_membership_removals.user_id = ${person}`,
  purge: { by: 'groups', column: 'group_id', counts: 'membershipRemovals', stage: 'leaves' },
  notRetained: 'removed past RETENTION_DELETED by the eviction of soft-deleted data, not by a pass of its own',
  // a removal is the soft deletion of a membership: evicted by its own age, its group kept
  evict: {
    resource: 'conversation_memberships',
    goes: {
      agedBy: 'removed_at',
      take: (tx, cutoff, limit) => evictRemovals(tx, cutoff, limit),
      counts: 'membershipRemovals',
    },
  },
  export: {
    kind: 'membership_removal',
    columns: () => `id, group_id AS "groupId", user_id AS "userId", access_level AS "accessLevel",
      ${iso('created_at')} AS "createdAt", ${iso('removed_at')} AS "removedAt"`,
    keys: ['id'],
    keyOf: keyOne('id'),
  },
  import: membershipRemovalImport,
  erase: {
    writtenByOthers: true,
    named: deleteRemovals,
  },
};

/** Counts each row under its group's family. */
function byFamily(rows: ReadonlyArray<{ source_api: string | null }>, kind: 'memberships' | 'membershipRemovals') {
  const counts = noErasureCounts();
  for (const r of rows) addCount(counts, familyOf(r.source_api), 'postgres', kind, 1);
  return counts;
}

/** Removal records older than the cutoff, the first `limit` by id, each group's locked and deleted by its key. */
async function evictRemovals(tx: Queryable, cutoff: Date, limit: number): Promise<number> {
  const { taken } = await dueByGroup(
    tx,
    {
      table: 'conversation_membership_removals',
      shard: 'group_id',
      key: 'id',
      order: 'id',
      where: 'removed_at < $1',
      params: [cutoff],
      limit,
    },
    async (group, ids) =>
      (
        await tx.query<{ id: string }>(
          `DELETE FROM conversation_membership_removals WHERE group_id = $1 AND id IN (
             SELECT id FROM conversation_membership_removals
             WHERE group_id = $1 AND id = ANY($2::int8[]) AND removed_at < $3 FOR UPDATE SKIP LOCKED)
           RETURNING id`,
          [group, ids, cutoff],
        )
      ).rows,
  );
  return taken.length;
}

/**
 * Removes the removals naming the person. Their group's family is joined to the deleted rows, not
 * looked up per row: Citus refuses a subquery on another distributed table in a RETURNING list.
 */
async function deleteRemovals(tx: Queryable, userId: string): Promise<ErasureCounts> {
  const { rows } = await tx.query<{ source_api: string | null }>(
    `WITH gone AS (DELETE FROM conversation_membership_removals WHERE ${membershipRemovals.named!('$1')} RETURNING group_id)
     SELECT c.source_api FROM gone ${joinConversation('c', 'gone.group_id', 'gone.group_id')}`,
    [userId],
  );
  return byFamily(rows, 'membershipRemovals');
}

/**
 * memory-service's offers of a group's ownership. One the person made or was made, in a group
 * not theirs (offered to them, or made by them before the group changed hands), names them.
 */
export const ownershipTransfers: LifecycleParticipant = {
  table: 'conversation_ownership_transfers',
  within: { group: 'group_id' },
  named: (person) =>
    `conversation_ownership_transfers.from_user_id = ${person} OR conversation_ownership_transfers.to_user_id = ${person}`,
  purge: { by: 'groups', column: 'group_id', counts: 'transfers', stage: 'leaves' },
  notRetained: "a group's ownership offers, kept while the group is: they go with it",
  notEvicted: EVICTED_WITH_GROUP,
  export: {
    kind: 'ownership_transfer',
    columns: () => `id, group_id AS "groupId", conversation_id AS "conversationId",
      from_user_id AS "fromUserId", to_user_id AS "toUserId", status,
      ${iso('created_at')} AS "createdAt", ${iso('decided_at')} AS "decidedAt"`,
    keys: ['id'],
    keyOf: keyOne('id'),
  },
  import: ownershipTransferImport,
  erase: {
    writtenByOthers: true,
    named: async (tx, userId) => {
      const counts = noErasureCounts();
      const { rowCount } = await tx.query(
        `DELETE FROM conversation_ownership_transfers WHERE ${ownershipTransfers.named!('$1')}`,
        [userId],
      );
      addCount(counts, 'memory-service', 'postgres', 'transfers', rowCount ?? 0);
      return counts;
    },
  },
};
