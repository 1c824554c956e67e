import { EVICTED_WITH_GROUP, type LifecycleParticipant } from '../../participant/participant.js';
import { purgeKeywordTotals, purgeSearchItems } from './search-rows.js';

const INDEX = 'an index made from messages and memories, which the import builds again from them';
const INDEXED = 'goes with the message or memory it indexes (their retain parts take it)';

/**
 * The search index. Its rows go with the messages and memories they index, whoever removes
 * them, so it takes part in no person's export or erasure; a purge of a group deletes it after
 * them (see PURGE_STAGES).
 */
const indexTable = (table: string, part: Pick<LifecycleParticipant, 'purge' | 'notPurged'>): LifecycleParticipant => ({
  table,
  within: 'nowhere',
  notExported: INDEX,
  notRetained: INDEXED,
  notEvicted: EVICTED_WITH_GROUP,
  ...part,
});

/**
 * A purge takes whole groups, and every search table is keyed by the group first: the rows and
 * the statistics over them go by group_key, with nothing counted out (search-rows.ts counts a
 * row out only when its group stays).
 */
const byGroup = 'group_key';

const OVERALL = 'sums over every conversation, which no group owns: the purge of a group counts it out of them';

export const searchIndex: readonly LifecycleParticipant[] = [
  // with the groups' waiting rows and totals, each counted out of the sums over every
  // conversation as it goes, in the order the fold locks them (purgeSearchItems)
  indexTable('search_items', {
    purge: { by: 'groups', column: byGroup, counts: 'searchItems', stage: 'index', deletes: purgeSearchItems },
  }),
  indexTable('search_vectors', { notPurged: 'its foreign key to search_items deletes it with its item' }),
  indexTable('search_unembedded', { notPurged: 'its foreign key to search_items deletes it with its item' }),
  // uncounted: search_items' bookkeeping, gone with the rows it counted. purgeSearchItems deletes
  // the waiting rows first: a fold that took some before the purge has committed its counts once
  // their delete returns, and one after it finds none, so no count of a purged group is written
  // after its counts went. This stage and the next delete whatever a writer added since.
  indexTable('search_keyword_pending', { purge: { by: 'groups', column: byGroup, stage: 'statistics' } }),
  indexTable('search_keyword_totals', {
    purge: { by: 'groups', column: byGroup, stage: 'statistics', deletes: purgeKeywordTotals },
  }),
  // written by no writer since migration 0048, only by one of an earlier version still running
  // through a rolling upgrade: nothing here is counted, nor read
  indexTable('search_keyword_frequencies', { purge: { by: 'groups', column: byGroup, stage: 'statistics' } }),
  // the sums over every conversation: a purge counts its groups out of them (the totals above, the
  // lexemes with search_items)
  indexTable('search_keyword_overall_totals', { notPurged: OVERALL }),
  indexTable('search_keyword_overall_frequencies', { notPurged: OVERALL }),
];
