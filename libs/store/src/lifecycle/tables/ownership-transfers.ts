import { iso, keyOne, EVICTED_WITH_GROUP, type LifecycleParticipant } from '../participant.js';
import { addCount, noErasureCounts } from '../../repositories/erasure-counts.js';

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
