import type { LifecycleParticipant } from '../../participant/participant.js';
import { addCount, noErasureCounts } from '../../participant/erasure-counts.js';

/**
 * A request's recorded answer, kept for status lookups until the purge takes it (hours). One may
 * name the person: their private chat as its group, or their id in the answer (JSON text quotes
 * the id as to_json does).
 */
export const requestOutcomes: LifecycleParticipant = {
  table: 'request_outcomes',
  within: { group: 'group_id' },
  named: (person) =>
    `request_outcomes.group_id = 'private:' || ${person} OR strpos(request_outcomes.result::text, to_json(${person}::text)::text) > 0`,
  // a stored message's outcome names its conversation (a fork's too) as its group
  purge: { by: 'both', column: 'group_id', counts: 'requestOutcomes', stage: 'leaves' },
  notRetained: 'kept for hours, removed by the request-outcome purge rather than a retention period',
  notEvicted: 'kept for hours, removed by the request-outcome purge, or with its group when that is evicted',
  notExported: 'an answer kept for status lookups for hours, made again by nothing: ids and statuses, no words',
  erase: {
    writtenByOthers: true,
    named: async (tx, userId) => {
      const counts = noErasureCounts();
      const { rows } = await tx.query<{ kind: string }>(
        `DELETE FROM request_outcomes WHERE ${requestOutcomes.named!('$1')} RETURNING kind`,
        [userId],
      );
      for (const o of rows)
        addCount(counts, o.kind === 'conversation' ? 'memory-service' : 'evermemos', 'postgres', 'requestOutcomes', 1);
      return counts;
    },
  },
};
