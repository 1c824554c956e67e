// What a topic should be (the catalogue's spec) and what setup found on one that existed: both
// are plain descriptions, kept apart from the bus and the admin code that use them.

export interface TopicSpec {
  readonly name: string;
  readonly partitions?: number;
  /**
   * Kafka's `retention.ms`, set when the topic is created (an existing topic keeps what it has).
   * The in-process bus keeps a record until every group has passed it, and a topic nobody consumes
   * (a dead-letter topic) until it is erased.
   */
  readonly retentionMs?: number;
  /**
   * Kafka's `segment.ms`, set at creation too: a deleted record's bytes leave the disk only with
   * its whole segment file, so this bounds how long they outlive an erasure's cut.
   */
  readonly segmentMs?: number;
}

/** What the setup job found on one topic that already existed, and whether it set it right. */
export interface TopicFinding {
  readonly topic: string;
  readonly setting:
    | 'retention.ms'
    | 'segment.ms'
    | 'partitions'
    | 'replication factor'
    | 'min.insync.replicas'
    | 'unknown topic';
  readonly found: string;
  readonly wanted: string;
  readonly fixed: boolean;
  readonly why: string;
}
