/** A record as a consumer sees it, whichever implementation carried it. */
export interface BusRecord {
  readonly topic: string;
  readonly partition: number;
  /** Kafka offsets are 64-bit; kept as a decimal string as kafkajs does. */
  readonly offset: string;
  readonly key: string | null;
  /** Empty for a tombstone (see `tombstone`). */
  readonly value: Buffer;
  /**
   * Set when the record's value was null on the wire, which only a producer of our public input
   * topics could write: such a record is refused, and its dead letter keeps the null.
   */
  readonly tombstone?: true;
  readonly headers: Readonly<Record<string, string>>;
}
