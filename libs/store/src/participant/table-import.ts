import type { ExportDataKind, ExportDataRecord } from '@memstream/schemas';
import type { Queryable } from '../store.js';

/** An export record of kind `K`. */
export type ImportRecord<K extends ExportDataKind> = Extract<ExportDataRecord, { kind: K }>;

/** How many records a statement stored, per conversation (or group) they belong to. */
export type StoredPer = Map<string, number>;

/**
 * What a record belongs to: the conversation (or group) it is counted under, and the conversations
 * and groups the import must have created for it to be stored.
 */
export interface ImportNeeds {
  readonly owner: string;
  readonly conversations: string[];
  readonly groups: string[];
}

/**
 * What the import loop hands a table's part while it writes: its note of what the import created
 * so far (lifecycle/import-scope.ts holds it), and the question every table answers about an id.
 */
export interface ImportContext {
  /** The conversations (and ARK streams alone) created so far, in id order. */
  ids(): string[];
  /** The groups created so far, each once. */
  groups(): string[];
  /** Notes what a creating statement stored, each id with its group. */
  note(rows: Iterable<{ id: string; group: string }>): void;
  /** Of `ids`, those under which any table holds something (each part's `holds`, in the registry's order). */
  inUse(q: Queryable, ids: readonly string[]): Promise<Set<string>>;
}

/** What the import created, once every record is in: the ids in id order, their groups each once. */
export interface ImportCreated {
  readonly ids: string[];
  readonly groups: string[];
}

/** A membership the import granted, for the audit log (a type, not an interface: an audit value is indexable). */
export type ImportGrant = { groupId: string; userId: string; accessLevel: string };

/** What every import part may say, beside how it finds what its records belong to. */
interface ImportPart<K extends ExportDataKind> {
  /** The kind of record it stores: the table's `export.kind` (or a `carried` kind). */
  readonly kind: K;
  /**
   * Runs on every record of a batch before the batch is split by what the import created, and
   * refuses the whole import (a message whose conversation is not stored).
   */
  readonly checkEvery?: (q: Queryable, records: Array<ImportRecord<K>>) => Promise<void>;
  /** Refuses the whole import before storing the records of its own conversations (a server-made id taken). */
  readonly check?: (q: Queryable, records: Array<ImportRecord<K>>) => Promise<void>;
  /**
   * Stores the records with the ids, numbers and times they carry, skipping one whose key is
   * stored; answers how many it stored per owner. A part with `needs` may also be run on records
   * of conversations the import did not create, and undone (see wouldStore): what it would store
   * there is refused.
   */
  readonly write: (q: Queryable, records: Array<ImportRecord<K>>, scope: ImportContext) => Promise<StoredPer>;
  /**
   * Of `ids` (conversation or group ids), those under which the table holds something: a
   * conversation or ARK stream is created only under an id no table holds (conversationInUse).
   * For a creating kind, also which of its records are stored after its batch.
   */
  readonly holds?: (q: Queryable, ids: readonly string[]) => Promise<string[]>;
  /**
   * The table's column the server numbers from a sequence and the import writes with the file's
   * numbers: after the import, its sequence moves past them (advanceSequences).
   */
  readonly numbered?: string;
  /**
   * Runs once every record is in, on what the import created: a repair that leaves it in a state
   * every later write can follow (a counter past the numbers the file brought), or a refusal.
   */
  readonly finish?: (q: Queryable, created: ImportCreated) => Promise<void>;
  /** The access the import granted in the groups it created, for the audit log. */
  readonly granted?: (q: Queryable, groups: readonly string[]) => Promise<ImportGrant[]>;
  /**
   * Kinds the export writes out of the table's rows as records of their own (a conversation's
   * fork, right after it), each stored by its own part.
   */
  readonly carried?: readonly AnyTableImport[];
}

/**
 * A table's part in importing an export: how one kind of record is stored. A kind either needs
 * what the import created (`needs`: its record is stored only when everything it names was created
 * by this import) or creates it (`creates`: a conversation, an ARK stream alone, decided in its
 * statement and noted in the import's scope; never written and undone, which would leave the note
 * behind).
 */
export type TableImport<K extends ExportDataKind> = ImportPart<K> &
  (
    | { readonly needs: (r: ImportRecord<K>) => ImportNeeds; readonly creates?: undefined }
    | {
        /** The id a record creates; one its batch did not store is refused unless `holds` finds it stored. */
        readonly creates: (r: ImportRecord<K>) => string;
        readonly holds: (q: Queryable, ids: readonly string[]) => Promise<string[]>;
        readonly needs?: undefined;
      }
  );

/** The import part of any kind. */
export type AnyTableImport = { [K in ExportDataKind]: TableImport<K> }[ExportDataKind];
