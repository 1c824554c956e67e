import { Kafka, logLevel, type Consumer, type Producer, type LogEntry } from 'kafkajs';
import type { Logger } from '@memstream/logging';
import type { Metrics } from '@memstream/metrics';
import type { Bus, BusRecord, OutgoingRecord, SubscribeOptions, Subscription, TopicSpec } from './bus.js';
import { deliverBatch, type DeliveryDeps } from './deliver.js';
import { backoffDelayMs } from '@memstream/retry';
import { startPeriodicJob, type PeriodicJob } from '@memstream/runtime';
import { StopRequested } from './wait-or-stop.js';
import { ProduceQueue, type TopicRecords } from './produce-queue.js';
import { busMetricsOf, measuredPublish, type BusMetrics } from './bus-metrics.js';
import { decodeHeaders } from './kafka-headers.js';
import { kafkaRetainedRecords } from './kafka-retained-records.js';
import type { PartitionCut, PartitionRange } from './retained-records.js';

/** How a consumer kafkajs gave up on is started again. */
const CONSUMER_RESTART = { initialDelayMs: 1000, maxDelayMs: 30_000 };

export interface KafkaBusOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  /** Prepended to every topic name on the wire; callers always use the catalogue's names. */
  readonly topicPrefix?: string;
  readonly log: Logger;
  readonly defaultPartitions: number;
  readonly replicationFactor: number;
  readonly requestTimeoutMs: number;
  /** Unset: 30 s. A dead consumer's partitions move to the rest of its group after this. */
  readonly sessionTimeoutMs?: number;
  /** The process's registry; the bus reports produce, consumer lag and handler series on it. */
  readonly metrics: Metrics;
  /** How often a consumer commits progress inside a long batch; a batch's end always commits. */
  readonly commitIntervalMs?: number;
}

/**
 * Kafka through kafkajs. The producer is idempotent with acks=all and one request in flight, so
 * a retried send neither duplicates nor reorders. Consumers commit by hand, only after a record
 * was handled or dead-lettered, and on stop they finish the record in hand and commit it first.
 */
export class KafkaBus implements Bus {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private producer: Producer | undefined;
  private producerReady: Promise<Producer> | undefined;
  private readonly subscriptions = new Set<KafkaSubscription>();
  private readonly produceQueue = new ProduceQueue((batch) => this.send(batch), {
    maxRecords: 5_000,
    maxBytes: 900_000,
  });
  private readonly metrics: BusMetrics;
  private readonly retained: ReturnType<typeof kafkaRetainedRecords>;

  constructor(private readonly options: KafkaBusOptions) {
    this.metrics = busMetricsOf(options.metrics);
    const log = options.log.child({ component: 'kafkajs' });
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: [...options.brokers],
      requestTimeout: options.requestTimeoutMs,
      connectionTimeout: Math.min(10_000, options.requestTimeoutMs),
      retry: { initialRetryTime: 100, retries: 8, maxRetryTime: 5_000 },
      logLevel: logLevel.WARN,
      logCreator: () => (entry: LogEntry) => {
        const { message, ...extra } = entry.log;
        const fields = { namespace: entry.namespace, ...extra };
        if (entry.level <= logLevel.ERROR) log.error(fields, message);
        else log.warn(fields, message);
      },
    });
    this.retained = kafkaRetainedRecords({
      kafka: this.kafka,
      clientId: options.clientId,
      wire: (t) => this.wire(t),
      timeoutMs: Math.max(60_000, options.requestTimeoutMs),
    });
  }

  ranges(topic: string): Promise<PartitionRange[]> {
    return this.retained.ranges(topic);
  }

  committed(topic: string, groupId: string): Promise<Map<number, number>> {
    return this.retained.committed(topic, groupId);
  }

  scan(topic: string, ranges: readonly PartitionRange[]): Promise<BusRecord[]> {
    return this.retained.scan(topic, ranges);
  }

  deleteBelow(topic: string, cuts: readonly PartitionCut[]): Promise<void> {
    return this.retained.deleteBelow(topic, cuts);
  }

  /**
   * Creates missing topics and returns once every partition of every topic has a leader. Replicas
   * start together and race to create the same topics; the losers must still wait for leaders,
   * because a consumer that joins its group while a topic has none is assigned nothing and
   * kafkajs only looks again at its next metadata refresh (minutes).
   */
  async ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const wanted = topics.map((t) => ({ ...t, name: this.wire(t.name) }));
      const existing = new Set(await admin.listTopics());
      const missing = wanted.filter((t) => !existing.has(t.name));
      if (missing.length > 0) {
        await admin
          .createTopics({
            // Our own wait below: kafkajs's gives up with UNKNOWN_TOPIC_OR_PARTITION when the
            // broker's metadata lags the creation (a freshly started KRaft broker does).
            waitForLeaders: false,
            topics: missing.map((t) => ({
              topic: t.name,
              numPartitions: t.partitions ?? this.options.defaultPartitions,
              replicationFactor: this.options.replicationFactor,
              configEntries: topicConfig(t),
            })),
          })
          .catch((err: unknown) => {
            // another replica created some of them first: fine, the wait below covers them
            if (
              !/already exists|TOPIC_ALREADY_EXISTS|Topic creation errors/i.test(String((err as Error).message ?? err))
            )
              throw err;
          });
      }
      const deadline = Date.now() + this.options.requestTimeoutMs;
      for (;;) {
        const metadata = await admin.fetchTopicMetadata({ topics: wanted.map((t) => t.name) }).catch(() => undefined);
        const ready = metadata?.topics.every(
          (t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0),
        );
        if (ready) return;
        if (Date.now() > deadline) throw new Error(`topics have no leaders after ${this.options.requestTimeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await admin.disconnect();
    }
  }

  /** Calls made while a request is in flight share the next one (see ProduceQueue). */
  publish(topic: string, records: readonly OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    return measuredPublish(this.metrics, topic, records.length, () => this.produceQueue.enqueue(topic, records));
  }

  private async send(batch: readonly TopicRecords[]): Promise<void> {
    try {
      await this.sendOnce(batch);
    } catch (err) {
      if (!producerStateLost(err)) throw err;
      // The broker no longer knows this producer's sequence (it restarted, or expired the
      // producer id): kafkajs cannot recover the same producer, so a new one (a new id) sends
      // again. Consumers take a record twice without harm; losing it is what must not happen.
      this.options.log.warn({ err }, 'producer state lost on the broker; sending again with a new producer');
      await this.resetProducer();
      await this.sendOnce(batch);
    }
  }

  private async resetProducer(): Promise<void> {
    const stale = this.producerReady;
    this.producerReady = undefined;
    await stale?.then((p) => p.disconnect()).catch(() => undefined);
  }

  private async sendOnce(batch: readonly TopicRecords[]): Promise<void> {
    const producer = await this.connectProducer();
    await producer.sendBatch({
      acks: -1,
      timeout: this.options.requestTimeoutMs,
      topicMessages: batch.map((t) => ({
        topic: this.wire(t.topic),
        messages: t.records.map((r) => ({ key: r.key, value: r.value, headers: { ...r.headers } })),
      })),
    });
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: this.options.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: Math.min(3_000, Math.floor((this.options.sessionTimeoutMs ?? 30_000) / 3)),
      rebalanceTimeout: 60_000,
      // kafkajs's default is 5 minutes: a partition it did not know of would idle that long
      metadataMaxAge: 30_000,
      retry: { initialRetryTime: 200, retries: 10, maxRetryTime: 10_000 },
      ...(options.lingerMs ? { minBytes: 64 * 1024, maxWaitTimeInMs: options.lingerMs } : {}),
    });
    const deps = {
      log: this.options.log.child({ groupId: options.groupId }),
      publish: (t: string, r: readonly OutgoingRecord[]) => this.publish(t, r),
      metrics: this.metrics,
    };
    const sub = new KafkaSubscription(consumer, options, this.wire(options.topic), this.options, deps, () => {
      this.subscriptions.delete(sub);
    });
    this.subscriptions.add(sub);
    await sub.start();
    return sub;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.retained.close();
    if (this.producerReady) {
      const producer = await this.producerReady.catch(() => undefined);
      await producer?.disconnect();
    }
  }

  private wire(topic: string): string {
    return `${this.options.topicPrefix ?? ''}${topic}`;
  }

  private connectProducer(): Promise<Producer> {
    if (!this.producerReady) {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: true,
      });
      this.producerReady = producer.connect().then(
        () => producer,
        (err: unknown) => {
          this.producerReady = undefined; // let the next publish try again
          throw err;
        },
      );
    }
    return this.producerReady;
  }
}

class KafkaSubscription implements Subscription {
  private readonly abort = new AbortController();
  private stopping: Promise<void> | undefined;
  /** Next offset to commit, per partition, for what has been handled but not yet committed. */
  private readonly pending = new Map<number, string>();
  private readonly inFlight = new Set<number>();
  private lastCommit = Date.now();
  private commits: PeriodicJob | undefined;
  /** Partitions this member reports lag for; a rebalance drops the ones it no longer owns. */
  private readonly lagPartitions = new Set<number>();

  constructor(
    private readonly consumer: Consumer,
    private readonly options: SubscribeOptions,
    private readonly wireTopic: string,
    private readonly busOptions: KafkaBusOptions,
    private readonly deps: Omit<DeliveryDeps, 'signal'>,
    private readonly onStopped: () => void,
  ) {}

  async start(): Promise<void> {
    const { consumer, options, wireTopic } = this;
    const { log } = this.deps;
    const commitIntervalMs = this.busOptions.commitIntervalMs ?? 1_000;
    // run() returns before the group is joined; a process should not report ready (and a
    // held write should not start its clock) before its consumers actually consume.
    let joinedTimer: NodeJS.Timeout | undefined;
    // Every (re)join says which partitions this member now owns: how a takeover shows in the logs.
    consumer.on(consumer.events.GROUP_JOIN, (e) =>
      log.info(
        { topic: options.topic, partitions: e.payload.memberAssignment[wireTopic] ?? [] },
        'partitions assigned',
      ),
    );
    const joined = new Promise<void>((resolve) => {
      const off = consumer.on(consumer.events.GROUP_JOIN, () => {
        off();
        resolve();
      });
      joinedTimer = setTimeout(resolve, 60_000); // a slow join is logged by kafkajs; start anyway
    });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) =>
      this.keepLagOf(new Set(payload.memberAssignment[wireTopic] ?? [])),
    );
    // kafkajs restarts a crashed consumer only after errors it calls retriable; after others (a
    // broker that went away in the middle of a commit, say) the consumer stays stopped for good
    // and its partitions are never read again. Such a consumer is started again here.
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || this.abort.signal.aborted) return;
      log.error({ err: payload.error, topic: options.topic }, 'consumer crashed for good; starting it again');
      this.restartLater(1);
    });
    await this.runConsumer();
    await joined;
    clearTimeout(joinedTimer);
    // Partitions that went quiet still get their last offsets committed.
    this.commits = startPeriodicJob(
      { name: 'periodic offset commit', everyMs: commitIntervalMs, jitterMs: 0, log },
      async () => {
        if (this.pending.size === 0 || this.abort.signal.aborted) return;
        await this.commitPending((offsets) =>
          this.consumer.commitOffsets(
            offsets.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, ...p }))),
          ),
        );
      },
    );
  }

  /** Starts the consumer again after the backoff of its `attempt`th try (1 s doubling to 30 s, with jitter). */
  private restartLater(attempt: number): void {
    const timer = setTimeout(
      () => {
        if (this.abort.signal.aborted) return;
        this.runConsumer().catch((err: unknown) => {
          this.deps.log.warn({ err, topic: this.options.topic }, 'starting the consumer again failed; trying later');
          this.restartLater(attempt + 1);
        });
      },
      backoffDelayMs(CONSUMER_RESTART, attempt),
    );
    timer.unref();
  }

  /** Connects, subscribes and consumes; called once at start and again after a crash kafkajs gives up on. */
  private async runConsumer(): Promise<void> {
    const { consumer, options, wireTopic } = this;
    const commitIntervalMs = this.busOptions.commitIntervalMs ?? 1_000;
    await consumer.connect();
    await consumer.subscribe({ topic: wireTopic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: options.partitionsConcurrently ?? 1,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsetsIfNecessary }) => {
        // Not consumer.commitOffsets here: kafkajs turns that into a silent no-op once stop() has
        // begun, which is exactly when the records in hand must still be committed. The batch's
        // own commit goes straight to the group coordinator, which we have not left yet.
        const commitAll = () => this.commitPending((offsets) => commitOffsetsIfNecessary(offsets));
        const chunkSize = options.batchHandler ? (options.maxBatchSize ?? 500) : 1;
        // The high watermark is the offset the next record written will get, as of this fetch.
        const reportLag = (nextOffset: string) =>
          this.reportLag(batch.partition, BigInt(batch.highWatermark) - BigInt(nextOffset));
        if (batch.messages.length > 0) reportLag(batch.firstOffset()!);
        this.inFlight.add(batch.partition);
        try {
          for (let i = 0; i < batch.messages.length; i += chunkSize) {
            if (!isRunning() || isStale() || this.abort.signal.aborted) break;
            const records: BusRecord[] = batch.messages.slice(i, i + chunkSize).map((message) => ({
              topic: options.topic,
              partition: batch.partition,
              offset: message.offset,
              key: message.key?.toString() ?? null,
              value: message.value ?? Buffer.alloc(0),
              headers: decodeHeaders(message.headers),
            }));
            try {
              await deliverBatch(records, options, { ...this.deps, signal: this.abort.signal });
            } catch (err) {
              if (err instanceof StopRequested) break;
              throw err;
            }
            const last = records[records.length - 1]!.offset;
            resolveOffset(last);
            const next = (BigInt(last) + 1n).toString();
            this.pending.set(batch.partition, next);
            reportLag(next);
            if (Date.now() - this.lastCommit >= commitIntervalMs) await commitAll();
            await heartbeat();
          }
        } finally {
          this.inFlight.delete(batch.partition);
          // Ending early (stop, rebalance, error): commit what finished now. Otherwise offsets
          // wait for the interval, so a busy consumer sends one commit per interval, not one
          // per partition batch; redelivery after a crash is bounded by the same interval.
          if (
            !isRunning() ||
            isStale() ||
            this.abort.signal.aborted ||
            Date.now() - this.lastCommit >= commitIntervalMs
          ) {
            await commitAll();
          }
        }
      },
    });
  }

  private reportLag(partition: number, lag: bigint): void {
    this.lagPartitions.add(partition);
    this.deps.metrics.consumerLag.set(this.lagLabels(partition), Number(lag > 0n ? lag : 0n));
  }

  /** After a rebalance: stop reporting partitions another member owns now (their lag is its to report). */
  private keepLagOf(assigned: ReadonlySet<number>): void {
    for (const partition of this.lagPartitions) {
      if (assigned.has(partition)) continue;
      this.deps.metrics.consumerLag.remove(this.lagLabels(partition));
      this.lagPartitions.delete(partition);
    }
  }

  private lagLabels(partition: number) {
    return { topic: this.options.topic, partition: String(partition), group: this.options.groupId };
  }

  private async commitPending(
    send: (offsets: {
      topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>;
    }) => Promise<unknown>,
    only?: (partition: number) => boolean,
  ): Promise<void> {
    const entries = [...this.pending].filter(([partition]) => only?.(partition) ?? true);
    if (entries.length === 0) return;
    for (const [partition, offset] of entries)
      if (this.pending.get(partition) === offset) this.pending.delete(partition);
    this.lastCommit = Date.now();
    await send({
      topics: [{ topic: this.wireTopic, partitions: entries.map(([partition, offset]) => ({ partition, offset })) }],
    });
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.abort.abort();
      await this.commits?.stop();
      // Partitions with no batch in hand: commit while the consumer still runs (kafkajs ignores
      // commits once it stops). The batches in hand commit their own in their finally blocks,
      // which disconnect waits for.
      await this.commitPending(
        (offsets) =>
          this.consumer.commitOffsets(
            offsets.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, ...p }))),
          ),
        (partition) => !this.inFlight.has(partition),
      ).catch(() => undefined); // not fatal: those records are redelivered, and handlers are idempotent
      await this.consumer.disconnect();
      this.keepLagOf(new Set());
      this.onStopped();
    })();
    return this.stopping;
  }
}

function topicConfig(t: TopicSpec): Array<{ name: string; value: string }> {
  const entries: Array<{ name: string; value: string }> = [];
  if (t.retentionMs !== undefined) entries.push({ name: 'retention.ms', value: String(t.retentionMs) });
  if (t.segmentMs !== undefined) entries.push({ name: 'segment.ms', value: String(t.segmentMs) });
  return entries;
}

/** Errors after which an idempotent producer cannot go on: the broker lost or fenced its sequence. */
function producerStateLost(err: unknown, depth = 0): boolean {
  if (err === null || typeof err !== 'object' || depth > 5) return false;
  const e = err as { type?: unknown; cause?: unknown; originalError?: unknown };
  if (typeof e.type === 'string' && LOST_PRODUCER_STATE.has(e.type)) return true;
  return producerStateLost(e.cause, depth + 1) || producerStateLost(e.originalError, depth + 1);
}

const LOST_PRODUCER_STATE = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_EPOCH',
  'INVALID_PRODUCER_ID_MAPPING',
]);
