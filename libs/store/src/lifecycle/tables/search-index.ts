import { EVICTED_WITH_GROUP, type LifecycleParticipant } from '../participant.js';

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

const byConversation = 'conversation_id';

export const searchIndex: readonly LifecycleParticipant[] = [
  indexTable('search_items', {
    purge: { by: 'conversations', column: byConversation, counts: 'searchItems', stage: 'index' },
  }),
  indexTable('search_vectors', { notPurged: 'its foreign key to search_items deletes it with its item' }),
  indexTable('search_unembedded', { notPurged: 'its foreign key to search_items deletes it with its item' }),
  // uncounted: search_items' bookkeeping, gone with the rows it counted
  indexTable('search_keyword_totals', { purge: { by: 'conversations', column: byConversation, stage: 'statistics' } }),
  indexTable('search_keyword_frequencies', {
    purge: { by: 'conversations', column: byConversation, stage: 'statistics' },
  }),
  indexTable('search_keyword_pending', {
    notPurged: "search_items' delete trigger takes an item's pending keyword counts with it (search_keyword_uncount)",
  }),
];
