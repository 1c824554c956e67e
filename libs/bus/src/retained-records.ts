import type { BusRecord } from './bus-record.js';

/** One partition's retained records: offsets `start` (the first kept) up to `end` (the next to be written). */
export interface PartitionRange {
  readonly partition: number;
  readonly start: number;
  readonly end: number;
}

/** A cut of one partition: every record below `offset` goes. */
export interface PartitionCut {
  readonly partition: number;
  readonly offset: number;
}

/**
 * What a bus keeps after consumers took it, for erasing a person's copies (see
 * erase-transport-copies.ts): where each partition starts and ends, where a group stands, the
 * records of a range, and deleting a partition's prefix. Both buses answer the same way, so one
 * erasure works on Kafka and on the embedded journal.
 */
export interface RetainedRecords {
  ranges(topic: string): Promise<PartitionRange[]>;
  /** The offset `groupId` resumes from on each partition it has committed on; partitions it never committed on are absent. */
  committed(topic: string, groupId: string): Promise<Map<number, number>>;
  /** Every record of the ranges given (the whole of [start, end) of each), in offset order per partition. */
  scan(topic: string, ranges: readonly PartitionRange[]): Promise<BusRecord[]>;
  /**
   * Deletes every record below each cut, for good: a reader from offset 0 starts at the cut. A
   * group still behind a cut resumes at it (Kafka's reset to earliest); callers cut only below
   * every group that must see the records.
   */
  deleteBelow(topic: string, cuts: readonly PartitionCut[]): Promise<void>;
}
