import type { AnyTableImport } from '../participant/table-import.js';
import {
  EVICTABLE_RESOURCES,
  type LifecycleParticipant,
  PURGE_STAGES,
  RETAIN_STAGES,
  type TableEvict,
  type TablePurge,
  type TableRetain,
} from '../participant/participant.js';
import { conversations } from '../tables/conversations/lifecycle.js';
import { arkChunks, arkSessions } from '../tables/ark/lifecycle.js';
import { conversationMeta, conversationMetaDefault } from '../tables/conversation-meta/lifecycle.js';
import { memberships, membershipRemovals, personGroups } from '../tables/memberships/lifecycle.js';
import { ownershipTransfers } from '../tables/memberships/lifecycle.js';
import { messages } from '../tables/conversations/lifecycle.js';
import { episodes, episodicMemories, summaries } from '../tables/memories/lifecycle.js';
import { kaosEvents, kaosSessionNames, kaosSessions } from '../tables/kaos/lifecycle.js';
import { requestOutcomes } from '../tables/request-outcomes/lifecycle.js';
import { searchIndex } from '../tables/search/lifecycle.js';
import { storeTables } from '../participant/operational.js';
import { auditLog } from '../tables/audit-log/lifecycle.js';
import { jobTables } from '../tables/jobs/lifecycle.js';
import { busJournalTables } from '../tables/bus-journal/lifecycle.js';

/**
 * Every table of the store, each with its part in exporting and erasing a person, in purging
 * conversation groups, in retention and in eviction. The order is the export's: a kind after the kinds its import refers to (a
 * conversation before its messages, an episode before its memories, a session before its events);
 * the purge and retention keep their own, by stage (PURGE_ORDER, RETAIN_ORDER); the import finds each
 * kind's part by its kind (IMPORT_PARTS). A table missing
 * here fails the symmetry test (services/governance/test/export-equals-erasure.test.ts),
 * libs/store/test/purge-registry.test.ts, retain-registry.test.ts and evict-registry.test.ts.
 */
export const PARTICIPANTS: readonly LifecycleParticipant[] = [
  conversations,
  arkSessions,
  conversationMeta,
  memberships,
  membershipRemovals,
  personGroups,
  ownershipTransfers,
  messages,
  episodes,
  episodicMemories,
  summaries,
  kaosSessions,
  kaosSessionNames,
  kaosEvents,
  arkChunks,
  conversationMetaDefault,
  requestOutcomes,
  ...searchIndex,
  auditLog,
  ...jobTables,
  ...busJournalTables,
  ...storeTables,
];

export const participant = (table: string): LifecycleParticipant => {
  const found = PARTICIPANTS.find((p) => p.table === table);
  if (!found) throw new Error(`no lifecycle participant for table ${table}`);
  return found;
};

/** The tables a purge of conversation groups deletes from, in the order it deletes them (by stage). */
export const PURGE_ORDER: readonly (LifecycleParticipant & { readonly purge: TablePurge })[] = PARTICIPANTS.filter(
  (p): p is LifecycleParticipant & { purge: TablePurge } => p.purge !== undefined,
).sort((a, b) => PURGE_STAGES[a.purge.stage] - PURGE_STAGES[b.purge.stage]);

/** The tables retention removes by age, in the order its passes run (by the stage of their kind). */
export const RETAIN_ORDER: readonly (LifecycleParticipant & { readonly retain: TableRetain })[] = PARTICIPANTS.filter(
  (p): p is LifecycleParticipant & { retain: TableRetain } => p.retain !== undefined,
).sort((a, b) => RETAIN_STAGES[a.retain.kind] - RETAIN_STAGES[b.retain.kind]);

/** The tables the eviction of soft-deleted data takes rows from, in the order of their resource types. */
export const EVICT_ORDER: readonly (LifecycleParticipant & { readonly evict: TableEvict })[] = PARTICIPANTS.filter(
  (p): p is LifecycleParticipant & { evict: TableEvict } => p.evict !== undefined,
).sort((a, b) => EVICTABLE_RESOURCES.indexOf(a.evict.resource) - EVICTABLE_RESOURCES.indexOf(b.evict.resource));

/** The import parts (participant/table-import.ts) in the registry's order, each with the kinds it carries after it. */
export const IMPORT_PARTS: readonly AnyTableImport[] = PARTICIPANTS.flatMap((p) =>
  p.import ? [p.import, ...(p.import.carried ?? [])] : [],
);
