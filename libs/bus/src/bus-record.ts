/** A record as a consumer sees it, whichever implementation carried it. */
export interface BusRecord {
  readonly topic: string;
  readonly partition: number;
  /** Kafka offsets are 64-bit; kept as a decimal string as kafkajs does. */
  readonly offset: string;
  readonly key: string | null;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}
