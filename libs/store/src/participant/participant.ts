import type { ExportDataKind } from '@memstream/schemas';
import type { Queryable } from '../store.js';
import type { ErasureCounts } from './erasure-counts.js';
import type { PurgeCount } from './purge-counts.js';
import type { RetentionBatch, RetentionCounts, RetentionScope } from './retention-counts.js';
import type { AnyTableImport } from './table-import.js';

/**
 * A table's part in the lifecycles that cross every table. Today: purging conversation groups
 * (`purge`), removing what is past its retention period (`retain`), evicting soft-deleted data
 * (`evict`), importing an export (`import`), and exporting a person and erasing one, which must agree row for row (a person's
 * export holds exactly what erasing them removes or de-identifies), so the rows that are a
 * person's are said once, here, and both read it.
 *
 * A person's rows in a table are of two sorts:
 * - `whole`: the rows inside the conversation groups that are the person's whole (personGroupsSql),
 *   found through the column `within` names. The erasure purges those groups; the export holds them.
 * - `named`: the rows outside those groups that are the person's or name them (`named`). The
 *   erasure removes or de-identifies them (`eraseNamed`); the export holds them (`exportNamed`
 *   may show only the person's part of a row, as the erasure keeps the rest).
 *
 * SQL conditions are written against the table's own name (no alias), with `person` the
 * placeholder of the person's id, so the exporter and the eraser put them in their statements as
 * they are.
 */
export interface LifecycleParticipant {
  readonly table: string;
  /** Where a row sits: its conversation, its conversation group, or its ARK session (a conversation or a group id). */
  readonly within:
    | { readonly conversation: string }
    | { readonly group: string }
    | { readonly session: string }
    | 'nowhere';
  /** The table every other row sits in (through `within`): one holding a person's named rows is named in their export. */
  readonly root?: boolean;
  /** The person's rows outside their own groups, as a condition; unset: there are none. */
  readonly named?: (person: string) => string;
  /**
   * The row of another table each named row needs on import (its parent, by a foreign key): the
   * export holds it with them, as the conversation of a named row is named.
   */
  readonly needs?: { readonly table: string; readonly column: string; readonly by: string };
  readonly export?: TableExport;
  /**
   * How the records of the export's kind are stored again (table-import.ts): every participant
   * with an export has one, of the same kind (import-registry.test.ts).
   */
  readonly import?: AnyTableImport;
  /** Why the table has no export kind: what the erasure does with it is then not the person's data. */
  readonly notExported?: string;
  readonly erase?: TableErase;
  readonly purge?: TablePurge;
  /** Why purging a group deletes nothing here: another table's delete takes the rows, or none sit in a group. */
  readonly notPurged?: string;
  readonly retain?: TableRetain;
  /** Why no retention period removes the table's rows by their age: what removes them instead. */
  readonly notRetained?: string;
  readonly evict?: TableEvict;
  /** Why the eviction of soft-deleted data takes nothing here by itself: what removes the rows instead. */
  readonly notEvicted?: string;
}

/** Why most tables have no evict part: their rows go with the group the eviction purges. */
export const EVICTED_WITH_GROUP = 'goes with its conversation group when the eviction purges it (conversations)';

/**
 * The order of retention's passes, by the setting (RETENTION_*) each applies; the eviction of
 * soft-deleted data (RETENTION_DELETED) runs after them all. A row is counted under the first
 * pass that takes it, so the order is part of what a run reports (the audit entry, the metrics).
 */
export const RETAIN_STAGES = {
  /**
   * What was said goes first, with what was made of it (its search rows, the episodes cut from it
   * extracted again, their memories, the conversation's summaries): the memory and summary passes
   * then take only what outlived the words it was made of.
   */
  messages: 1,
  /**
   * A KAOS event and the message it became are one thing said: the message pass took those events
   * with their messages; this one takes the rest (tool calls, delegations) and the session's messages.
   */
  kaosEvents: 2,
  memories: 3,
  summaries: 4,
  /**
   * ARK sessions go whole, last: a group purge (its conversations locked first, see
   * purgeConversationGroups) counts under arkSessions only what the passes by row left.
   */
  arkSessions: 5,
} as const;
export type RetainedKind = keyof typeof RETAIN_STAGES;

/** One batch of a retention pass: rows older than the cutoff, in the scope, at most `batchSize` of what it walks. */
/** What forgetting messages removed with them (lifecycle/forget.ts). */
export interface ForgetResult {
  readonly deletedMessages: number;
  /** Current episodic memories removed (their superseded history goes with them). */
  readonly deletedMemories: number;
  /** Episodes that lost some messages and will be extracted again from the rest. */
  readonly episodesReopened: number;
  /** Episodes that lost every message and are gone. */
  readonly episodesDeleted: number;
  /** Search rows removed with the messages (their own) and with the memories (theirs, current or not). */
  readonly deletedMessageSearchRows: number;
  readonly deletedMemorySearchRows: number;
}

/**
 * Forgets a conversation's messages created before `before`, with what was made of them (search
 * rows and vectors, the episodes holding them, their memories): the retention loop hands it to a
 * pass, so a table's part calls the cascade without knowing its tables.
 */
export type ForgetMessagesBefore = (tx: Queryable, conversationId: string, before: Date) => Promise<ForgetResult>;

export interface RetainPass {
  readonly cutoff: Date;
  readonly scope: RetentionScope;
  readonly batchSize: number;
  /** Where a pass that walks conversations in id order goes on from. */
  readonly after?: string | undefined;
  readonly forgetMessagesBefore: ForgetMessagesBefore;
}

/** How retention removes the table's rows once they are older than their kind's period. */
export interface TableRetain {
  readonly kind: RetainedKind;
  /** The columns a row's age is measured by: it is due once each is before the cutoff. */
  readonly agedBy: readonly string[];
  /** Whether a conversation's metadata (RETENTION_METADATA_KEY) may shorten the period. */
  readonly overridable: boolean;
  readonly goes: RetainRows | RetainGroups;
}

/** Removed by a helper the table owns, with what goes with them (`takes`, counted under this kind). */
export interface RetainRows {
  readonly takes: readonly string[];
  readonly rows: (tx: Queryable, pass: RetainPass) => Promise<RetentionBatch>;
}

/** Removed whole with their conversation groups: the groups due (at most batchSize), which retention purges. */
export interface RetainGroups {
  readonly groups: (tx: Queryable, pass: RetainPass) => Promise<readonly string[]>;
  /** The count the groups found go into. */
  readonly counts: keyof RetentionCounts;
}

/**
 * The stages of purging conversation groups, in the order they run: each stage's tables after
 * every table of the stages before. Within a stage the order carries no meaning, as no table of a
 * stage refers to another of it (the registry test checks this against the schema's foreign keys).
 */
export const PURGE_STAGES = {
  /**
   * What the indexer holds (FOR KEY SHARE) while it writes a search row: once the messages and
   * memories are gone, the search rows deleted next cannot come back. (Memories deleted after
   * the search rows let an indexer that took one in between leave its row, with the memory's
   * words, behind: the erasure test caught one under load.)
   */
  indexed: 1,
  /** The search rows, after what they index. */
  index: 2,
  /** The keyword statistics over the search rows, deleted whole with their groups, after the rows. */
  statistics: 3,
  /** Rows no other purged table refers to. */
  leaves: 4,
  /** Rows others refer to, after those: a cascade would take them uncounted, and a plain key would refuse. */
  parents: 5,
  /** The conversations, which the purge locked before anything else: every other table hangs off them. */
  root: 6,
} as const;
export type PurgeStage = keyof typeof PURGE_STAGES;

/** What purging conversation groups deletes from the table: `DELETE … WHERE column = ANY(ids)`. */
export interface TablePurge {
  /**
   * The ids the rows are found by: the purged conversations, their groups, or both at once (an
   * ARK session's id is its conversation's, or its group's before it has one).
   */
  readonly by: 'conversations' | 'groups' | 'both';
  readonly column: string;
  /** The count the deleted rows go into; unset: not counted. */
  readonly counts?: PurgeCount;
  readonly stage: PurgeStage;
  /**
   * The column of the time a row was stored, for a table keyed by conversation: a row stored after
   * its conversation was deleted (written to again) keeps the group from a purge that requires
   * deletion. `group` is the table's column of the conversation's group (its shard column), which
   * a check of one conversation names too, so that it runs on the group's shard.
   */
  readonly storedAt?: { readonly column: string; readonly group: string };
  /**
   * The table's own statement for it, when deleting the rows must change rows elsewhere too (the
   * keyword counts take a group's counts out of their sums over every conversation): it deletes
   * what the DELETE above would, in the caller's transaction, and returns how many rows it deleted.
   */
  readonly deletes?: (tx: Queryable, ids: readonly string[]) => Promise<number>;
}

/**
 * memory-service's eviction resource types, in the order a batch of an eviction job takes them:
 * whole groups first, then, in the room they leave, rows of their own.
 */
export const EVICTABLE_RESOURCES = ['conversation_groups', 'conversation_memberships'] as const;
export type EvictableResource = (typeof EVICTABLE_RESOURCES)[number];

/** How the eviction of soft-deleted data (RETENTION_DELETED, an eviction job's cutoff) takes the table's rows. */
export interface TableEvict {
  /** The resource type of an eviction job that asks for it. */
  readonly resource: EvictableResource;
  readonly goes: EvictGroups | EvictRows;
}

/** The conversation groups soft-deleted before the cutoff, which the eviction purges whole. */
export interface EvictGroups {
  /**
   * SQL selecting them as `group_id`: at most `limit` in group order when it is set. A group
   * written to since its deletion (`writtenSince`, true for a conversation stored in after its
   * deleted_at; the registry's purge parts say where, by their storedAt) is in use again and not due.
   */
  readonly groups: (o: {
    cutoff: string;
    limit?: string | undefined;
    writtenSince: (conversation: string, deletedAt: string, group: string) => string;
  }) => string;
}

/** Rows of the table's own due by one column's age, deleted a batch at a time, each counted. */
export interface EvictRows {
  /** The column a row's age is measured by: it is due once it is before the cutoff. */
  readonly agedBy: string;
  /**
   * Deletes up to `limit` rows due before the cutoff, in the caller's transaction, locking them by
   * the shard column (dueByGroup); how many went.
   */
  readonly take: (tx: Queryable, cutoff: Date, limit: number) => Promise<number>;
  readonly counts: PurgeCount;
}

export interface TableExport {
  readonly kind: ExportDataKind;
  /** The select list (after the kind); `whole` is a condition true for the rows in the person's groups (`true` for the server). */
  readonly columns: (o: { whole: string; person: string | undefined }) => string;
  /** Extra condition for every row exported (a kind that exports only some states). */
  readonly only?: string;
  /** Extra condition for a person's own export: what they may read. */
  readonly readable?: string;
  readonly keys: readonly string[];
  readonly keyOf: (row: Record<string, unknown>) => unknown[];
}

export interface TableErase {
  /**
   * Removes or de-identifies the named rows (keyed-records step). `writtenByOthers`: others may
   * write such rows at will, so the final check removes them again instead of counting them as
   * the person's data still stored.
   */
  readonly named?: (tx: Queryable, userId: string) => Promise<ErasureCounts>;
  readonly writtenByOthers?: boolean;
  /** The kind of the person's own data the final check looks for in the named rows (holds back completion). */
  readonly ownData?: 'messages' | 'memories';
  /**
   * The final check of an erasure holds back new writes to the table (a SHARE lock) when a write
   * there can add to a person's data; the numbers order the locks as the write path takes them (a
   * conversation's row, then its messages), so that no lock waits in a cycle.
   */
  readonly heldBack?: number;
}

/** ISO timestamps to PostgreSQL's microsecond, which a JavaScript Date would round to milliseconds. */
export const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export const keyOne = (key: string) => (row: Record<string, unknown>) => [row[key]];
export const keyTwo = (a: string, b: string) => (row: Record<string, unknown>) => [row[a], row[b]];
