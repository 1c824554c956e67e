import type { BusRecord } from './bus.js';

/** Where a consumer group resumes on one partition: the offset it will be given next. */
export interface GroupPosition {
  readonly topic: string;
  readonly groupId: string;
  readonly partition: number;
  readonly offset: number;
}

/** Every group has passed the records of this partition below `offset`. */
export interface TrimPoint {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

export interface JournalContents {
  /** Retained records; any order (the bus sorts them). */
  readonly records: readonly BusRecord[];
  readonly positions: readonly GroupPosition[];
}

/**
 * Durable storage for the in-process bus, so the embedded mode keeps Kafka's promises across a
 * crash: a published record survives once `append` resolved, and a group resumes from its last
 * committed position. The bus calls one method at a time per kind and never appends an offset
 * twice unless the earlier append failed, so an implementation needs no locking of its own.
 */
export interface BusJournal {
  load(): Promise<JournalContents>;
  /**
   * All or nothing, durable when it resolves. Writing an offset again replaces the record: after
   * an append that failed late (a timeout after the commit), the bus reuses those offsets.
   */
  append(records: readonly BusRecord[]): Promise<void>;
  /** Replaces each group's position on the partitions given. */
  commit(positions: readonly GroupPosition[]): Promise<void>;
  /** Deletes records below each point. */
  trim(points: readonly TrimPoint[]): Promise<void>;
}
