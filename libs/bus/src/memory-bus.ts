import type { Logger } from '@memstream/logging';
import type { Metrics } from '@memstream/metrics';
import type { Bus, BusRecord, OutgoingRecord, SubscribeOptions, Subscription, TopicSpec } from './bus.js';
import { deliverBatch, type DeliveryDeps } from './deliver.js';
import { StopRequested, sleep } from './backoff.js';
import { partitionFor } from './partitioner.js';
import { busMetricsOf, measuredPublish, type BusMetrics } from './bus-metrics.js';

interface PartitionLog {
  /** Offset of records[0]; records below every group's committed offset are dropped. */
  base: number;
  records: BusRecord[];
  wake: Set<() => void>;
}

interface TopicState {
  partitions: PartitionLog[];
  /** groupId -> next offset to deliver, per partition */
  committed: Map<string, number[]>;
}

/** Records kept below the slowest group's position before the log is compacted. */
const TRIM_THRESHOLD = 1024;

/**
 * The embedded mode's bus: the same keyed partitions, consumer groups, per-partition order,
 * commit-after-success, retries and dead-letter topic as the Kafka bus, inside one process.
 * It keeps records in memory: a record is durable only once a consumer has written it to the
 * store, which is why the write APIs confirm storage before they promise anything.
 */
export class MemoryBus implements Bus {
  readonly kind = 'memory' as const;
  private readonly topics = new Map<string, TopicState>();
  private readonly subscriptions = new Set<MemorySubscription>();
  private closed = false;
  private readonly metrics: BusMetrics;

  constructor(
    private readonly log: Logger,
    private readonly defaultPartitions: number,
    metrics: Metrics,
  ) {
    this.metrics = busMetricsOf(metrics);
  }

  async ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
    for (const t of topics) this.topic(t.name, t.partitions);
  }

  async publish(topicName: string, records: readonly OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return;
    return measuredPublish(this.metrics, topicName, records.length, async () => this.append(topicName, records));
  }

  private append(topicName: string, records: readonly OutgoingRecord[]): void {
    if (this.closed) throw new Error('bus is closed');
    const topic = this.topic(topicName);
    for (const r of records) {
      const p = partitionFor(r.key, topic.partitions.length);
      const part = topic.partitions[p]!;
      part.records.push({
        topic: topicName,
        partition: p,
        offset: String(part.base + part.records.length),
        key: r.key,
        value: typeof r.value === 'string' ? Buffer.from(r.value) : r.value,
        headers: { ...r.headers },
      });
      for (const wake of part.wake) wake();
      part.wake.clear();
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw new Error('bus is closed');
    for (const s of this.subscriptions) {
      if (s.options.groupId === options.groupId && s.options.topic === options.topic) {
        throw new Error(`group ${options.groupId} already consumes ${options.topic} in this process`);
      }
    }
    const topic = this.topic(options.topic);
    const positions = topic.committed.get(options.groupId) ?? topic.partitions.map((p) => p.base);
    topic.committed.set(options.groupId, positions);
    const deps = { log: this.log, publish: (t: string, r: readonly OutgoingRecord[]) => this.publish(t, r), metrics: this.metrics };
    const sub = new MemorySubscription(options, topic, positions, deps, () => {
      this.subscriptions.delete(sub);
    });
    this.subscriptions.add(sub);
    sub.start();
    return sub;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
  }

  private topic(name: string, partitions = this.defaultPartitions): TopicState {
    let t = this.topics.get(name);
    if (!t) {
      t = {
        partitions: Array.from({ length: partitions }, () => ({ base: 0, records: [], wake: new Set() })),
        committed: new Map(),
      };
      this.topics.set(name, t);
    }
    return t;
  }
}

class MemorySubscription implements Subscription {
  private readonly abort = new AbortController();
  private workers: Promise<void>[] = [];

  constructor(
    readonly options: SubscribeOptions,
    private readonly topic: TopicState,
    private readonly positions: number[],
    private readonly deps: Omit<DeliveryDeps, 'signal'>,
    private readonly onStopped: () => void,
  ) {}

  start(): void {
    this.workers = this.topic.partitions.map((_, p) => this.consume(p));
  }

  async stop(): Promise<void> {
    this.abort.abort();
    for (const part of this.topic.partitions) {
      for (const wake of part.wake) wake();
    }
    await Promise.all(this.workers);
    this.onStopped();
  }

  private async consume(p: number): Promise<void> {
    const part = this.topic.partitions[p]!;
    const signal = this.abort.signal;
    const chunkSize = this.options.batchHandler ? (this.options.maxBatchSize ?? 500) : 1;
    let failures = 0;
    const lagLabels = { topic: this.options.topic, partition: String(p), group: this.options.groupId };
    while (!signal.aborted) {
      const next = this.positions[p]!;
      const start = next - part.base;
      this.deps.metrics.consumerLag.set(lagLabels, Math.max(0, part.records.length - start));
      if (start >= part.records.length) {
        await new Promise<void>((resolve) => part.wake.add(resolve));
        continue;
      }
      const chunk = part.records.slice(start, start + chunkSize);
      try {
        await deliverBatch(chunk, this.options, { ...this.deps, signal });
        this.positions[p] = next + chunk.length; // the commit
        failures = 0;
        this.trim(p, part);
      } catch (err) {
        if (err instanceof StopRequested) break;
        // The dead-letter write itself failed: like a Kafka consumer restart, deliver it again.
        failures++;
        this.deps.log.error({ err, topic: chunk[0]!.topic, partition: p, offset: chunk[0]!.offset }, 'delivery failed, redelivering');
        await sleep(Math.min(5000, 100 * 2 ** failures), signal).catch(() => undefined);
      }
    }
  }

  /** Drops records every group of this topic has passed, in chunks, so memory stays bounded. */
  private trim(p: number, part: PartitionLog): void {
    let slowest = Infinity;
    for (const positions of this.topic.committed.values()) slowest = Math.min(slowest, positions[p]!);
    const drop = slowest - part.base;
    if (drop >= TRIM_THRESHOLD) {
      part.records.splice(0, drop);
      part.base += drop;
    }
  }
}
