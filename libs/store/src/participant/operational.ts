import type { LifecycleParticipant } from './participant.js';

const NO_GROUP = 'about no conversation group';

/** A table of the server's own running, about no conversation: no lifecycle takes its rows, and `why` says what it holds. */
export const operationalTable = (table: string, why: string): LifecycleParticipant => ({
  table,
  within: 'nowhere',
  notExported: why,
  notPurged: NO_GROUP,
  notRetained: NO_GROUP,
  notEvicted: NO_GROUP,
});

/** The store's own tables: what was migrated, and how each table is laid out. */
export const storeTables: readonly LifecycleParticipant[] = [
  operationalTable('schema_migrations', 'the migrations applied'),
  operationalTable('store_distribution', 'how each table is distributed (docs/store.md)'),
];
