import type { Logger } from '@memstream/logging';
import type { Metrics } from '@memstream/metrics';
import type { Bus, BusRecord, OutgoingRecord, SubscribeOptions, Subscription, TopicSpec } from './bus.js';
import type { BusJournal } from './bus-journal.js';
import { deliverBatch, type DeliveryDeps } from './deliver.js';
import { backoffDelayMs } from '@memstream/retry';
import { StopRequested, waitOrStop } from './wait-or-stop.js';
import { partitionFor } from './partitioner.js';
import { busMetricsOf, measuredPublish, type BusMetrics } from './bus-metrics.js';
import { ProduceQueue, type TopicRecords } from './produce-queue.js';
import { JournalPositions, type GroupProgress } from './journal-positions.js';
import { journaledTopics, restoreTopic, type JournaledTopic } from './journal-restore.js';
import type { PartitionCut, PartitionRange } from './retained-records.js';

interface PartitionLog {
  /** Offset of records[0]; records below every group's committed offset are dropped. */
  base: number;
  records: BusRecord[];
  wake: Set<() => void>;
  /**
   * Called after every record appended, for as long as each subscription runs (wake is for a
   * consumer waiting for records, and is cleared once called): the lag gauges follow the log, so
   * a consumer stuck in a handler shows its lag growing instead of the lag it had when it started.
   */
  appended: Set<() => void>;
}

interface TopicState {
  partitions: PartitionLog[];
  /** groupId -> next offset to deliver, per partition */
  committed: Map<string, number[]>;
}

/** A record given its partition and offset, not yet visible to consumers. */
interface Placed {
  readonly part: PartitionLog;
  readonly record: BusRecord;
}

export interface MemoryBusOptions {
  /** Makes the bus durable (see BusJournal); without one, records live in this process only. */
  readonly journal?: BusJournal;
  /** Unset: 200 ms. How often consumer positions are written to the journal. */
  readonly commitIntervalMs?: number;
  /** Unset: 1 s. How often the journal drops records every group has passed. */
  readonly trimIntervalMs?: number;
}

/** Records kept below the slowest group's position before the log is compacted. */
const TRIM_THRESHOLD = 1024;

// One journal statement per batch; a few MB keeps that statement (values travel hex-encoded) well
// under any timeout while a backlog drains, and a tick of ordinary traffic is far below it.
const APPEND_LIMITS = { maxRecords: 5_000, maxBytes: 4_000_000 };

/**
 * The embedded mode's bus: the same keyed partitions, consumer groups, per-partition order,
 * commit-after-success, retries and dead-letter topic as the Kafka bus, inside one process.
 *
 * Without a journal it keeps records in memory only, and a crash loses what was not yet handled.
 * With one it keeps Kafka's promises: a publish resolves once its records are in the journal
 * (records published in the same turn share one append, one append in flight, so offsets and
 * per-key order hold), consumers see a record only once it is durable, and a new bus on the same
 * journal redelivers everything a group had not committed.
 */
export class MemoryBus implements Bus {
  readonly kind = 'memory' as const;
  private readonly topics = new Map<string, TopicState>();
  private readonly subscriptions = new Set<MemorySubscription>();
  private closed = false;
  private readonly metrics: BusMetrics;
  private readonly journal: BusJournal | undefined;
  private readonly appendQueue: ProduceQueue | undefined;
  private readonly journalPositions: JournalPositions | undefined;
  /** Topics the journal holds that this bus has not opened yet. */
  private journaled = new Map<string, JournaledTopic>();
  private opening: Promise<void> | undefined;

  constructor(
    private readonly log: Logger,
    private readonly defaultPartitions: number,
    metrics: Metrics,
    options: MemoryBusOptions = {},
  ) {
    this.metrics = busMetricsOf(metrics);
    this.journal = options.journal;
    if (options.journal) {
      this.appendQueue = new ProduceQueue((batch) => this.appendDurably(batch), APPEND_LIMITS);
      this.journalPositions = new JournalPositions(options.journal, () => this.progress(), log, {
        commitIntervalMs: options.commitIntervalMs ?? 200,
        trimIntervalMs: options.trimIntervalMs ?? 1_000,
      });
    }
  }

  async ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
    if (this.journal) await this.open();
    for (const t of topics) this.topic(t.name, t.partitions);
  }

  async publish(topicName: string, records: readonly OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return;
    return measuredPublish(this.metrics, topicName, records.length, async () => {
      if (this.closed) throw new Error('bus is closed');
      if (!this.appendQueue) return this.reveal(this.place([{ topic: topicName, records }]));
      await this.open();
      await this.appendQueue.enqueue(topicName, records);
    });
  }

  /** The append queue's send: offsets are taken only once the journal holds the records. */
  private async appendDurably(batch: readonly TopicRecords[]): Promise<void> {
    const placed = this.place(batch);
    await this.journal!.append(placed.map((p) => p.record));
    this.reveal(placed);
  }

  /** Gives records the offsets after the partition's last record; changes nothing yet. */
  private place(batch: readonly TopicRecords[]): Placed[] {
    const ahead = new Map<PartitionLog, number>();
    const placed: Placed[] = [];
    for (const { topic: name, records } of batch) {
      const topic = this.topic(name);
      for (const r of records) {
        // A null key only comes back as a dead letter of a direct producer's record, never in this mode.
        const p = partitionFor(r.key ?? '', topic.partitions.length);
        const part = topic.partitions[p]!;
        const n = ahead.get(part) ?? 0;
        ahead.set(part, n + 1);
        placed.push({
          part,
          record: {
            topic: name,
            partition: p,
            offset: String(part.base + part.records.length + n),
            key: r.key,
            value: typeof r.value === 'string' ? Buffer.from(r.value) : (r.value ?? Buffer.alloc(0)),
            headers: { ...r.headers },
            ...(r.value === null ? { tombstone: true as const } : {}),
          },
        });
      }
    }
    return placed;
  }

  private reveal(placed: readonly Placed[]): void {
    for (const { part, record } of placed) {
      part.records.push(record);
      for (const wake of part.wake) wake();
      part.wake.clear();
      for (const report of part.appended) report();
    }
  }

  async ranges(topicName: string): Promise<PartitionRange[]> {
    if (this.journal) await this.open();
    return this.topic(topicName).partitions.map((p, partition) => ({
      partition,
      start: p.base,
      end: p.base + p.records.length,
    }));
  }

  async committed(topicName: string, groupId: string): Promise<Map<number, number>> {
    if (this.journal) await this.open();
    return new Map((this.topic(topicName).committed.get(groupId) ?? []).map((offset, p) => [p, offset]));
  }

  async scan(topicName: string, ranges: readonly PartitionRange[]): Promise<BusRecord[]> {
    if (this.journal) await this.open();
    const topic = this.topic(topicName);
    return ranges.flatMap((r) => {
      const part = topic.partitions[r.partition];
      if (!part) return [];
      return part.records.slice(Math.max(0, r.start - part.base), Math.max(0, r.end - part.base));
    });
  }

  /** The journal's rows go first: a failure there leaves everything as it was, to be tried again. */
  async deleteBelow(topicName: string, cuts: readonly PartitionCut[]): Promise<void> {
    if (this.journal) await this.open();
    const topic = this.topic(topicName);
    const points = cuts
      .filter((c) => topic.partitions[c.partition] !== undefined)
      .map((c) => {
        const part = topic.partitions[c.partition]!;
        return {
          topic: topicName,
          partition: c.partition,
          offset: Math.min(c.offset, part.base + part.records.length),
        };
      });
    await this.journal?.trim(points);
    for (const { partition, offset } of points) {
      const part = topic.partitions[partition]!;
      if (offset <= part.base) continue;
      part.records.splice(0, offset - part.base);
      part.base = offset;
      // a group behind the cut resumes at it, as a Kafka consumer resets to the earliest offset
      for (const positions of topic.committed.values()) positions[partition] = Math.max(positions[partition]!, offset);
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.journal) await this.open();
    if (this.closed) throw new Error('bus is closed');
    for (const s of this.subscriptions) {
      if (s.options.groupId === options.groupId && s.options.topic === options.topic) {
        throw new Error(`group ${options.groupId} already consumes ${options.topic} in this process`);
      }
    }
    const topic = this.topic(options.topic);
    const positions = topic.committed.get(options.groupId) ?? topic.partitions.map((p) => p.base);
    topic.committed.set(options.groupId, positions);
    const deps = {
      log: this.log,
      publish: (t: string, r: readonly OutgoingRecord[]) => this.publish(t, r),
      metrics: this.metrics,
    };
    const sub = new MemorySubscription(options, topic, positions, deps, async () => {
      this.subscriptions.delete(sub);
      await this.journalPositions?.flush();
    });
    this.subscriptions.add(sub);
    sub.start();
    return sub;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.journalPositions?.close();
  }

  /** Loads the journal once, before any topic is touched; a failed load is tried again next call. */
  private open(): Promise<void> {
    this.opening ??= (async () => {
      this.journaled = journaledTopics(await this.journal!.load());
      if (!this.closed) this.journalPositions!.start();
    })().catch((err: unknown) => {
      this.opening = undefined;
      throw err;
    });
    return this.opening;
  }

  private *progress(): Iterable<GroupProgress> {
    for (const [topic, state] of this.topics) {
      for (const [groupId, positions] of state.committed) yield { topic, groupId, positions };
    }
  }

  private topic(name: string, partitions = this.defaultPartitions): TopicState {
    let t = this.topics.get(name);
    if (!t) {
      const restored = restoreTopic(name, this.journaled.get(name), partitions);
      this.journaled.delete(name);
      t = {
        partitions: restored.partitions.map((p) => ({
          base: p.base,
          records: p.records,
          wake: new Set(),
          appended: new Set(),
        })),
        committed: restored.committed,
      };
      this.topics.set(name, t);
    }
    return t;
  }
}

class MemorySubscription implements Subscription {
  private readonly abort = new AbortController();
  private workers: Promise<void>[] = [];
  private readonly lagReporters: Array<() => void> = [];

  constructor(
    readonly options: SubscribeOptions,
    private readonly topic: TopicState,
    private readonly positions: number[],
    private readonly deps: Omit<DeliveryDeps, 'signal'>,
    private readonly onStopped: () => Promise<void>,
  ) {}

  start(): void {
    this.topic.partitions.forEach((part, p) => {
      const labels = { topic: this.options.topic, partition: String(p), group: this.options.groupId };
      const report = () =>
        this.deps.metrics.consumerLag.set(labels, Math.max(0, part.base + part.records.length - this.positions[p]!));
      this.lagReporters[p] = report;
      part.appended.add(report);
    });
    this.workers = this.topic.partitions.map((_, p) => this.consume(p));
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.topic.partitions.forEach((part, p) => {
      for (const wake of part.wake) wake();
      part.appended.delete(this.lagReporters[p]!);
    });
    await Promise.all(this.workers);
    await this.onStopped();
  }

  private async consume(p: number): Promise<void> {
    const part = this.topic.partitions[p]!;
    const signal = this.abort.signal;
    const chunkSize = this.options.batchHandler ? (this.options.maxBatchSize ?? 500) : 1;
    let failures = 0;
    while (!signal.aborted) {
      const next = this.positions[p]!;
      const start = next - part.base;
      this.lagReporters[p]!();
      if (start >= part.records.length) {
        await new Promise<void>((resolve) => part.wake.add(resolve));
        continue;
      }
      if (this.options.lingerMs && part.records.length - start < chunkSize) {
        await waitOrStop(this.options.lingerMs, signal).catch(() => undefined);
        if (signal.aborted) break;
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
        this.deps.log.error(
          { err, topic: chunk[0]!.topic, partition: p, offset: chunk[0]!.offset },
          'delivery failed, redelivering',
        );
        await waitOrStop(backoffDelayMs({ initialDelayMs: 200, maxDelayMs: 5000 }, failures), signal).catch(
          () => undefined,
        );
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
