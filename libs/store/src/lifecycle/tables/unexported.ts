import type { LifecycleParticipant } from '../participant.js';

const INDEX = 'an index made from messages and memories, which the import builds again from them';

/** The search index: its rows go with the messages and memories they index, whoever erases them. */
export const searchIndex: readonly LifecycleParticipant[] = [
  'search_items',
  'search_vectors',
  'search_unembedded',
  'search_keyword_totals',
  'search_keyword_frequencies',
  'search_keyword_pending',
].map((table) => ({ table, within: 'nowhere' as const, notExported: INDEX }));

/** Tables of the server's own running, about no conversation. */
export const operational: readonly LifecycleParticipant[] = [
  ['audit_log', 'who did what to whom, kept as the record of it, an erasure included'],
  ['erasure_jobs', 'the erasure jobs themselves'],
  ['eviction_jobs', 'a job queue'],
  ['job_leases', 'a job queue'],
  ['bus_journal', "the embedded bus's copies in transit; the erasure's transport step removes the person's"],
  ['bus_journal_positions', "the embedded bus's read positions"],
  ['schema_migrations', 'the migrations applied'],
  ['store_distribution', 'how each table is distributed (docs/store.md)'],
].map(([table, why]) => ({ table: table!, within: 'nowhere' as const, notExported: why! }));
