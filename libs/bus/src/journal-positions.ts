import type { Logger } from '@memstream/logging';
import { startPeriodicJob, type PeriodicJob } from '@memstream/runtime';
import type { BusJournal, GroupPosition, TrimPoint } from './bus-journal.js';

/** A consumer group's in-memory positions on one topic, one per partition. */
export interface GroupProgress {
  readonly topic: string;
  readonly groupId: string;
  readonly positions: readonly number[];
}

export interface JournalPositionsOptions {
  /** How often moved positions are written: what a crash may redeliver, not lose. */
  readonly commitIntervalMs: number;
  /** How often records every group has passed are deleted. */
  readonly trimIntervalMs: number;
}

/**
 * Writes consumer groups' positions to the journal in the background, coalesced: a handled record
 * only moves a number in memory, and a timer writes whatever moved since the last write in one
 * call. A crash then redelivers at most an interval's worth of records (handlers are idempotent),
 * where a write per record would cost a round trip per record. Trimming works from the written
 * positions only, so a record is never deleted before the position that passed it is durable.
 */
export class JournalPositions {
  /** topic -> groupId -> positions as last written */
  private readonly durable = new Map<string, Map<string, number[]>>();
  /** topic -> partition -> offset the journal was last trimmed below */
  private readonly trimmed = new Map<string, number[]>();
  private job: PeriodicJob | undefined;
  private last: Promise<void> = Promise.resolve();
  private writing = 0;
  private lastTrimAt = Date.now();

  constructor(
    private readonly journal: BusJournal,
    private readonly progress: () => Iterable<GroupProgress>,
    private readonly log: Logger,
    private readonly options: JournalPositionsOptions,
  ) {}

  start(): void {
    // The lifecycle closes the bus, which closes this; the job's timer alone keeps no process up.
    this.job = startPeriodicJob(
      { name: 'journal positions', everyMs: this.options.commitIntervalMs, jitterMs: 0, log: this.log },
      () => this.tick(),
    );
  }

  /** Writes every position that moved, after any write in flight. */
  flush(trim = false): Promise<void> {
    this.writing++;
    const run = this.last
      .catch(() => undefined) // that failure was its caller's; what it did not write is still unwritten
      .then(() => this.write(trim))
      .finally(() => this.writing--);
    this.last = run;
    return run;
  }

  async close(): Promise<void> {
    await this.job?.stop();
    await this.flush();
  }

  private async tick(): Promise<void> {
    if (this.writing > 0) return; // a flush is writing: the next tick takes what this one would have
    const trim = Date.now() - this.lastTrimAt >= this.options.trimIntervalMs;
    await this.flush(trim).catch((err: unknown) =>
      this.log.error({ err }, 'writing consumer positions to the bus journal failed; retrying'),
    );
  }

  private async write(trim: boolean): Promise<void> {
    const moved = this.moved();
    if (moved.length > 0) {
      await this.journal.commit(moved);
      for (const m of moved) this.durableOf(m.topic, m.groupId)[m.partition] = m.offset;
    }
    if (!trim) return;
    this.lastTrimAt = Date.now();
    const points = this.trimPoints();
    if (points.length === 0) return;
    await this.journal.trim(points);
    for (const t of points) {
      let below = this.trimmed.get(t.topic);
      if (!below) this.trimmed.set(t.topic, (below = []));
      below[t.partition] = t.offset;
    }
  }

  private moved(): GroupPosition[] {
    const moved: GroupPosition[] = [];
    for (const { topic, groupId, positions } of this.progress()) {
      const durable = this.durable.get(topic)?.get(groupId);
      positions.forEach((offset, partition) => {
        if (durable?.[partition] !== offset) moved.push({ topic, groupId, partition, offset });
      });
    }
    return moved;
  }

  /** Per partition, the slowest group's written position, where it moved past the last trim. */
  private trimPoints(): TrimPoint[] {
    const floors = new Map<string, number[]>();
    for (const { topic, groupId, positions } of this.progress()) {
      const durable = this.durable.get(topic)?.get(groupId) ?? [];
      const floor = floors.get(topic) ?? positions.map(() => Infinity);
      // A group whose position was never written holds its partitions where they are.
      floors.set(
        topic,
        floor.map((f, p) => Math.min(f, durable[p] ?? -1)),
      );
    }
    const points: TrimPoint[] = [];
    for (const [topic, floor] of floors) {
      floor.forEach((offset, partition) => {
        if (offset > (this.trimmed.get(topic)?.[partition] ?? 0)) points.push({ topic, partition, offset });
      });
    }
    return points;
  }

  private durableOf(topic: string, groupId: string): number[] {
    let groups = this.durable.get(topic);
    if (!groups) this.durable.set(topic, (groups = new Map()));
    let positions = groups.get(groupId);
    if (!positions) groups.set(groupId, (positions = []));
    return positions;
  }
}
