import { Kafka, logLevel, type Admin, type Consumer, type Producer, type LogEntry, type TopicMessages } from 'kafkajs';
import type { Logger } from '@memstream/logging';
import { AppError, inCauseChain, isUnavailable } from '@memstream/errors';
import type { Metrics } from '@memstream/metrics';
import type { Bus, BusRecord, OutgoingRecord, SubscribeOptions, Subscription, TopicSpec } from './bus.js';
import { deliverBatch, type DeliveryDeps } from './deliver.js';
import { reconcileTopics } from './topic-settings.js';
import type { TopicFinding } from './topic-spec.js';
import { backoffDelayMs } from '@memstream/retry';
import { startPeriodicJob, type PeriodicJob } from '@memstream/runtime';
import { StopRequested, waitOrStop } from './wait-or-stop.js';
import { PartitionLane, settlesWithin } from './partition-lane.js';
import { ProduceQueue, type TopicRecords } from './produce-queue.js';
import { busMetricsOf, measuredPublish, type BusMetrics } from './bus-metrics.js';
import { decodeHeaders } from './kafka-headers.js';
import { kafkaRetainedRecords } from './kafka-retained-records.js';
import type { PartitionCut, PartitionRange } from './retained-records.js';
import { registerKafkaCodecs } from './kafka-codecs.js';
import { PartitionWitness } from './unanswered-partitions.js';
import { undecodableBatchOf, type UndecodableBatch } from './undecodable-batch.js';

/** Sends of records kafkajs skipped before a publish fails (a broker that keeps moving leaders). */
const UNANSWERED_ROUNDS = 5;

/** How a consumer kafkajs gave up on is started again. */
const CONSUMER_RESTART = { initialDelayMs: 1000, maxDelayMs: 30_000 };

export interface KafkaBusOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  /** Prepended to every topic name on the wire; callers always use the catalogue's names. */
  readonly topicPrefix?: string;
  readonly log: Logger;
  readonly defaultPartitions: number;
  /** Unset: the cluster's, up to 3 (see replicationOf). */
  readonly replicationFactor?: number;
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
  private readonly witness = new PartitionWitness();
  private readonly retained: ReturnType<typeof kafkaRetainedRecords>;

  constructor(private readonly options: KafkaBusOptions) {
    this.metrics = busMetricsOf(options.metrics);
    registerKafkaCodecs();
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
      wireGroup: (g) => this.wireGroup(g),
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
      // One deadline for creating and for the leaders: a controller that is being elected, or a
      // broker catching up after a restart, times a creation out or does not yet know the topic,
      // and the next try (of what is still missing) is the answer, not a failed start-up.
      const deadline = Date.now() + this.options.requestTimeoutMs;
      for (;;) {
        const existing = new Set(await admin.listTopics());
        const missing = wanted.filter((t) => !existing.has(t.name));
        if (missing.length === 0) break;
        const created = await this.createTopics(admin, missing).then(
          () => true,
          (err: unknown) => {
            if (!isTransient(err) || Date.now() > deadline) throw err;
            this.options.log.warn({ err }, 'topic creation to be tried again');
            return false;
          },
        );
        if (created) break;
        await new Promise((r) => setTimeout(r, 500));
      }
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

  private async createTopics(admin: Admin, missing: readonly (TopicSpec & { name: string })[]): Promise<void> {
    const replication = await this.replicationOf(admin);
    await admin
      .createTopics({
        // Our own wait (ensureTopics): kafkajs's gives up with UNKNOWN_TOPIC_OR_PARTITION when the
        // broker's metadata lags the creation (a freshly started KRaft broker does).
        waitForLeaders: false,
        topics: missing.map((t) => ({
          topic: t.name,
          numPartitions: t.partitions ?? this.options.defaultPartitions,
          replicationFactor: replication.factor,
          configEntries: [...topicConfig(t), ...replication.configEntries],
        })),
      })
      .catch((err: unknown) => {
        // another replica created some of them first: fine, the wait for leaders covers them
        if (!/already exists|TOPIC_ALREADY_EXISTS|Topic creation errors/i.test(String((err as Error).message ?? err)))
          throw err;
      });
  }

  /**
   * Holds topics that already existed to the catalogue's settings, fixing what is safe to fix,
   * and reports what it found (see reconcileTopics). The setup job runs it; services do not, so
   * an operator's own topic settings change only when they run setup.
   */
  async reconcileTopics(topics: readonly TopicSpec[]): Promise<TopicFinding[]> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      return await reconcileTopics(
        admin,
        topics.map((t) => ({
          ...t,
          name: this.wire(t.name),
          partitionsPlanned: t.partitions ?? this.options.defaultPartitions,
        })),
        this.options.topicPrefix ?? '',
        (await this.replicationOf(admin)).factor,
      );
    } finally {
      await admin.disconnect();
    }
  }

  /**
   * The replication of the topics this bus creates: the configured factor, or unset, one copy per
   * live broker up to 3, so one setting is right on a laptop's single broker and on a production
   * cluster, where a default of 1 would lose acknowledged records with one disk. From 3 copies on,
   * a write is acknowledged only once 2 hold it (min.insync.replicas), so losing one broker loses
   * nothing acknowledged and a second loss refuses writes instead of keeping them on one disk.
   */
  private async replicationOf(
    admin: Admin,
  ): Promise<{ factor: number; configEntries: Array<{ name: string; value: string }> }> {
    const factor = this.options.replicationFactor ?? Math.min(3, (await admin.describeCluster()).brokers.length);
    return { factor, configEntries: factor >= 3 ? [{ name: 'min.insync.replicas', value: '2' }] : [] };
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
      if (!producerStateLost(err)) {
        // kafkajs takes back the sequence numbers of a failed send, though the broker may have
        // appended it (a timeout while followers were away): the next send would reuse them, and
        // a broker that sees the same numbers and count again answers "duplicate" without writing
        // the new records. A new producer (a new id) numbers afresh; the failed send's callers
        // send again (consumers take a record twice without harm, never zero times).
        await this.resetProducer();
        throw err;
      }
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
    let topicMessages: TopicMessages[] = batch.map((t) => ({
      topic: this.wire(t.topic),
      messages: t.records.map((r) => ({ key: r.key, value: r.value, headers: { ...r.headers } })),
    }));
    // Records kafkajs skipped while partitions changed leaders (see PartitionWitness) go again,
    // alone: their partitions' order holds, as nothing else of those partitions was written.
    for (let round = 1; ; round++) {
      const answered = await producer.sendBatch({ acks: -1, timeout: this.options.requestTimeoutMs, topicMessages });
      topicMessages = this.witness.unanswered(topicMessages, answered);
      if (topicMessages.length === 0) return;
      const records = topicMessages.reduce((n, t) => n + t.messages.length, 0);
      if (round >= UNANSWERED_ROUNDS)
        throw new AppError('DEPENDENCY_UNAVAILABLE', `${records} records not written after ${round} sends`);
      this.options.log.warn({ records, round }, 'the broker never took some records of a send; sending them again');
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const consumer = this.kafka.consumer({
      groupId: this.wireGroup(options.groupId),
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
      wire: { topic: (t: string) => this.wire(t), group: (g: string) => this.wireGroup(g) },
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

  /**
   * A consumer group's id on the wire: the prefix names groups as it names topics, so two
   * deployments sharing a cluster with their own prefixes never join each other's groups (with
   * one group id between them, each member was assigned partitions of topics it does not read).
   */
  private wireGroup(groupId: string): string {
    return `${this.options.topicPrefix ?? ''}${groupId}`;
  }

  private connectProducer(): Promise<Producer> {
    if (!this.producerReady) {
      const producer = this.kafka.producer({
        createPartitioner: this.witness.createPartitioner,
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
  /** Per partition: the records taken from kafkajs, handled beside its next fetch (see PartitionLane). */
  private readonly lanes = new Map<number, PartitionLane>();
  /** Group joins so far: a commit that was under way across one tells the lanes nothing (see commitPending). */
  private joins = 0;
  /** Per partition: the high watermark of its latest fetch, for the lag a gathered handling reports. */
  private readonly highWatermarks = new Map<number, string>();
  private commits: PeriodicJob | undefined;
  /** Partitions this member reports lag for; a rebalance drops the ones it no longer owns. */
  private readonly lagPartitions = new Set<number>();
  /** Partitions paused at a batch that cannot be decoded, until an operator skips it (see park). */
  private readonly parked = new Map<number, UndecodableBatch>();

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
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const assigned = new Set(payload.memberAssignment[wireTopic] ?? []);
      this.keepLanesOf(assigned);
      this.keepLagOf(assigned);
      this.keepParkedOf(assigned);
    });
    // kafkajs restarts a crashed consumer only after errors it calls retriable; after others (a
    // broker that went away in the middle of a commit, say) the consumer stays stopped for good
    // and its partitions are never read again. Such a consumer is started again here.
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || this.abort.signal.aborted) return;
      log.error({ err: payload.error, topic: options.topic }, 'consumer crashed for good; starting it again');
      this.restartLater(1);
    });
    await this.startConsumer();
    await joined;
    clearTimeout(joinedTimer);
    // Partitions that went quiet still get their last offsets committed.
    this.commits = startPeriodicJob(
      { name: 'periodic offset commit', everyMs: commitIntervalMs, jitterMs: 0, log },
      async () => {
        if (this.abort.signal.aborted) return;
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

  /**
   * The first start. On a cluster a topic created a moment ago is not yet known to every broker,
   * and the one asked answers UNKNOWN_TOPIC_OR_PARTITION; that, or a broker out of reach, is asked
   * again until the request deadline instead of failing the process's start-up.
   */
  private async startConsumer(): Promise<void> {
    const deadline = Date.now() + this.busOptions.requestTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.runConsumer();
        return;
      } catch (err) {
        if (!isTransient(err) || Date.now() > deadline || this.abort.signal.aborted) throw err;
        this.deps.log.warn({ err, topic: this.options.topic }, 'starting the consumer failed; trying again');
        await new Promise((r) => setTimeout(r, Math.min(1_000, 100 * attempt)));
      }
    }
  }

  /** Connects, subscribes and consumes; called once at start and again after a crash kafkajs gives up on. */
  private async runConsumer(): Promise<void> {
    const { consumer, options, wireTopic } = this;
    const { signal } = this.abort;
    const heartbeatMs = Math.min(3_000, Math.floor((this.busOptions.sessionTimeoutMs ?? 30_000) / 3));
    // how many records a lane may hold gathered before a fetch waits for it (0: never gather)
    const gatherUpTo = options.batchHandler ? (options.maxBatchSize ?? 500) : 0;
    await consumer.connect();
    await consumer.subscribe({ topic: wireTopic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: options.partitionsConcurrently ?? 1,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale, pause }) => {
        const last = batch.messages[batch.messages.length - 1];
        if (!last) return;
        const { partition } = batch;
        const lane = this.laneOf(partition);
        // A batch handler takes records gathered from several fetches while the lane is busy, up
        // to a handler call's worth (see PartitionLane.gather); past that, or for a handler of one
        // record at a time, the partition's previous batches go first, heartbeating meanwhile: a
        // heartbeat that finds a rebalance throws, and kafkajs rejoins without waiting for the handler.
        while (lane.waiting >= gatherUpTo && !(await settlesWithin(lane.idle, heartbeatMs, signal))) {
          if (signal.aborted) break;
          await heartbeat();
        }
        if (signal.aborted) {
          pause(); // stopping: this batch stays unresolved and uncommitted, and kafkajs stops fetching it
          return;
        }
        if (!isRunning() || isStale() || !lane.current) return;
        if (this.parked.has(partition)) {
          pause(); // a batch fetched before the pause took hold: past the parked one, so not taken
          return;
        }
        let taken = lane.unseen(batch.messages);
        let lastTaken = last;
        const stop = taken.findIndex((m) => undecodableBatchOf(m.value));
        if (stop >= 0) {
          this.park(partition, undecodableBatchOf(taken[stop]!.value)!, BigInt(batch.highWatermark), pause);
          taken = taken.slice(0, stop);
          if (taken.length === 0) return;
          lastTaken = taken[taken.length - 1]!;
        }
        const records: BusRecord[] = taken.map((message) => ({
          topic: options.topic,
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          value: message.value ?? Buffer.alloc(0),
          headers: decodeHeaders(message.headers),
          ...(message.value === null ? { tombstone: true as const } : {}),
        }));
        // Resolved as taken, not as handled: it only moves kafkajs's next fetch past these
        // records. What is committed is what the lane has handled (lane.uncommitted).
        resolveOffset(lastTaken.offset);
        if (records.length === 0) return;
        if (stop < 0) this.reportLag(partition, BigInt(batch.highWatermark) - BigInt(records[0]!.offset));
        this.highWatermarks.set(partition, batch.highWatermark);
        lane.gather(lastTaken.offset, records, (gathered) =>
          this.handleInLane(lane, gathered, this.highWatermarks.get(partition) ?? batch.highWatermark),
        );
      },
    });
  }

  private laneOf(partition: number): PartitionLane {
    let lane = this.lanes.get(partition);
    if (!lane) {
      lane = new PartitionLane();
      this.lanes.set(partition, lane);
    }
    return lane;
  }

  /**
   * Handles a batch taken by its partition's lane, `maxBatchSize` records at a time. Never
   * rejects: a stop leaves the rest uncommitted (redelivered), and a delivery that failed without
   * dead-lettering (the bus itself failing) is tried again after a backoff, as a redelivery would.
   */
  private async handleInLane(lane: PartitionLane, records: readonly BusRecord[], highWatermark: string): Promise<void> {
    const { options } = this;
    const chunkSize = options.batchHandler ? (options.maxBatchSize ?? 500) : 1;
    for (let i = 0; i < records.length; i += chunkSize) {
      const chunk = records.slice(i, i + chunkSize);
      for (let attempt = 1; ; attempt++) {
        if (this.abort.signal.aborted || !lane.current) return;
        try {
          await deliverBatch(chunk, options, { ...this.deps, signal: this.abort.signal });
          break;
        } catch (err) {
          if (err instanceof StopRequested) return;
          this.deps.log.error(
            { err, topic: options.topic, partition: chunk[0]!.partition, offset: chunk[0]!.offset, attempt },
            'records neither handled nor dead-lettered; trying them again',
          );
          await waitOrStop(backoffDelayMs(CONSUMER_RESTART, attempt), this.abort.signal).catch(() => undefined);
        }
      }
      if (!lane.current) return; // the partition is another member's now: its progress is theirs to commit
      const next = (BigInt(chunk[chunk.length - 1]!.offset) + 1n).toString();
      lane.handled(next);
      this.reportLag(chunk[0]!.partition, BigInt(highWatermark) - BigInt(next));
    }
  }

  /**
   * After a (re)join: partitions this member lost stop between two batches, and their uncommitted
   * progress is dropped; those it kept offer their handled progress to the next commit again.
   */
  private keepLanesOf(assigned: ReadonlySet<number>): void {
    this.joins++;
    for (const [partition, lane] of this.lanes) {
      if (assigned.has(partition)) lane.rejoined();
      else this.lanes.set(partition, lane.successor());
    }
  }

  /**
   * Stops fetching a partition at a batch that cannot be decoded: nothing of it or after it is
   * handled or committed, so no record is lost or taken out of order, while the other partitions
   * go on. Said once in the log and held in a gauge; the operator skips the batch by moving the
   * group's offset past `lastOffset` (docs/kafka-topics.md). A restart or a rebalance that
   * brings the partition back fetches the batch again, and parks it again.
   */
  private park(partition: number, batch: UndecodableBatch, highWatermark: bigint, pause: () => unknown): void {
    pause();
    if (this.parked.has(partition)) return;
    this.parked.set(partition, batch);
    const { topic, groupId } = this.options;
    this.deps.metrics.parkedPartitions.set({ topic, partition: String(partition), group: groupId }, 1);
    this.reportLag(partition, highWatermark - BigInt(batch.firstOffset));
    this.deps.log.error(
      {
        topic,
        partition,
        ...batch,
        skipTo: (BigInt(batch.lastOffset) + 1n).toString(),
        // the names kafka-consumer-groups wants: the prefix is part of both on the broker
        brokerTopic: this.wireTopic,
        brokerGroup: this.deps.wire?.group(groupId) ?? groupId,
      },
      'a record batch cannot be decoded: its partition is parked until an operator skips the batch',
    );
  }

  /** After a rebalance: a parked partition another member owns now is resumed here, so it is fetched should it come back. */
  private keepParkedOf(assigned: ReadonlySet<number>): void {
    for (const partition of this.parked.keys()) {
      if (assigned.has(partition)) continue;
      this.consumer.resume([{ topic: this.wireTopic, partitions: [partition] }]);
      this.unpark(partition);
    }
  }

  private unpark(partition: number): void {
    this.parked.delete(partition);
    const { topic, groupId } = this.options;
    this.deps.metrics.parkedPartitions.remove({ topic, partition: String(partition), group: groupId });
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
  ): Promise<void> {
    const entries = [...this.lanes].flatMap(([partition, lane]) => {
      const offset = lane.uncommitted;
      return offset === undefined ? [] : [{ partition, offset, lane }];
    });
    if (entries.length === 0) return;
    const joins = this.joins;
    await send({
      topics: [{ topic: this.wireTopic, partitions: entries.map(({ partition, offset }) => ({ partition, offset })) }],
    });
    // kafkajs resolves a commit it dropped (its runner stopped, as during a restart after a crash)
    // as if it had been stored; the join that follows such a stop says so (PartitionLane.rejoined)
    if (joins === this.joins) for (const { offset, lane } of entries) lane.committed(offset);
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.abort.abort();
      await this.commits?.stop();
      // The records in hand finish (a wait for a retry ends at once), then everything handled is
      // committed while the consumer still runs: kafkajs ignores commits once it stops.
      await Promise.all([...this.lanes.values()].map((lane) => lane.idle));
      await this.commitPending((offsets) =>
        this.consumer.commitOffsets(offsets.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, ...p })))),
      ).catch(() => undefined); // not fatal: those records are redelivered, and handlers are idempotent
      await this.consumer.disconnect();
      this.keepLagOf(new Set());
      for (const partition of this.parked.keys()) this.unpark(partition);
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
function producerStateLost(err: unknown): boolean {
  return inCauseChain(err, (e) => typeof e.type === 'string' && LOST_PRODUCER_STATE.has(e.type));
}

const LOST_PRODUCER_STATE = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_EPOCH',
  'INVALID_PRODUCER_ID_MAPPING',
]);

/**
 * A broker out of reach, or one that says to ask again (kafkajs marks such protocol errors
 * retriable: NOT_CONTROLLER while a controller is elected, a request that timed out).
 */
function isTransient(err: unknown): boolean {
  return isUnavailable(err) || inCauseChain(err, (e) => (e as { retriable?: unknown }).retriable === true);
}
