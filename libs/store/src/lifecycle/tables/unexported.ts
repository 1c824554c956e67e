import type { LifecycleParticipant } from '../participant.js';

const NO_GROUP = 'about no conversation group';

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
].map(([table, why]) => ({
  table: table!,
  within: 'nowhere' as const,
  notExported: why!,
  notPurged: NO_GROUP,
  notRetained: NO_GROUP,
  notEvicted: NO_GROUP,
}));
