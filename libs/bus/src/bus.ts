import type { Logger } from '@memstream/logging';
import type { BusRecord } from './bus-record.js';
import type { RetainedRecords } from './retained-records.js';
import type { TopicFinding, TopicSpec } from './topic-spec.js';

export type { TopicSpec } from './topic-spec.js';

export type { BusRecord } from './bus-record.js';

export interface OutgoingRecord {
  /**
   * Records with the same key land on the same partition and keep their order. Null only where a
   * record is passed on as it came (a dead letter of a record that had none).
   */
  readonly key: string | null;
  /** Null only for a dead letter of a tombstone, kept as it came. */
  readonly value: string | Buffer | null;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RetryPolicy {
  /** Total tries, the first included. */
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

export interface HandlerContext {
  readonly attempt: number;
  /**
   * Child logger carrying topic, partition and offset, and for a single record its correlation
   * id. A batch's ids are in `correlationIds`: handlers that log a line for the batch add them.
   */
  readonly log: Logger;
  /** Distinct correlation ids (header `x-correlation-id`) of the records handled, in order. */
  readonly correlationIds: readonly string[];
  /** Aborted when the subscription stops; long handlers may give up early (the record is redelivered). */
  readonly signal: AbortSignal;
}

export type RecordHandler = (record: BusRecord, ctx: HandlerContext) => Promise<void>;

/** Handles consecutive records of one partition together (one transaction for many rows). */
export type BatchHandler = (records: readonly BusRecord[], ctx: HandlerContext) => Promise<void>;

/** Told after a record went to the dead-letter topic; failures here are logged, not retried. */
export type DeadLetterListener = (record: BusRecord, reason: { code: string; message: string }) => Promise<void>;

export interface SubscribeOptions {
  readonly groupId: string;
  readonly topic: string;
  readonly dlqTopic: string;
  /** Handles one record; also the fallback that isolates a bad record when a batch fails. */
  readonly handler: RecordHandler;
  /**
   * Optional: handles up to `maxBatchSize` consecutive records of a partition at once. When a
   * batch fails for good, its records are delivered one by one through `handler`, so one poison
   * record is dead-lettered alone and the rest still land.
   */
  readonly batchHandler?: BatchHandler;
  readonly maxBatchSize?: number;
  /**
   * Optional: how long a partition's batch may wait to fill up before it is handled anyway.
   * Background consumers (indexing, extraction, summaries) set it so that, under load, they handle
   * fewer and larger batches and leave the CPU to the write path; unset, a record is handled as
   * soon as it arrives. Kafka: the fetch waits up to this long for more data (`maxWaitTimeInMs`).
   */
  readonly lingerMs?: number;
  readonly onDeadLetter?: DeadLetterListener;
  readonly retry: RetryPolicy;
  /** Partitions handled at once; order always holds within a partition. */
  readonly partitionsConcurrently?: number;
}

export interface Subscription {
  /** Stops taking records, lets the handler in flight finish, commits what finished. */
  stop(): Promise<void>;
}

/**
 * Publish/subscribe with at-least-once delivery: a record's offset is committed only after its
 * handler succeeded or the record went to the dead-letter topic. Handlers must be idempotent.
 */
export interface Bus extends RetainedRecords {
  readonly kind: 'kafka' | 'memory';
  ensureTopics(topics: readonly TopicSpec[]): Promise<void>;
  /**
   * Kafka only: holds topics that already existed to the settings given, fixing what is safe,
   * and says what it found (the setup job's check). The in-process bus has nothing to check.
   */
  reconcileTopics?(topics: readonly TopicSpec[]): Promise<TopicFinding[]>;
  /** Resolves once the broker acknowledged every record (acks=all on Kafka). */
  publish(topic: string, records: readonly OutgoingRecord[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Stops every subscription still running, then releases the connections. */
  close(): Promise<void>;
}

/**
 * The header that carries a record's correlation id: the HTTP request's id for writes through an
 * API, or whatever a direct producer sets. Optional; consumers log it and pass it downstream.
 */
export const CORRELATION_HEADER = 'x-correlation-id';

/** Headers the bus writes on a dead-lettered record, so an operator can see why and from where. */
export const DLQ_HEADERS = {
  reason: 'x-dlq-reason',
  code: 'x-dlq-error-code',
  attempts: 'x-dlq-attempts',
  topic: 'x-dlq-source-topic',
  partition: 'x-dlq-source-partition',
  offset: 'x-dlq-source-offset',
  groupId: 'x-dlq-consumer-group',
} as const;
