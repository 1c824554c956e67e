import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@memstream/logging';
import type { Metrics } from '@memstream/metrics';
import { consumerLag } from './consumer-lag.js';
import type { RetainedRecords } from './retained-records.js';

export interface BacklogYieldOptions {
  /** The groups whose backlog comes first, with the topics they read. */
  readonly watched: readonly { readonly topic: string; readonly groupIds: readonly string[] }[];
  /** Records the watched groups may be behind, summed, before a caller is held. */
  readonly lag: number;
  /** The longest one backlog holds anybody: past it, background work goes on until the backlog is worked off. */
  readonly maxHoldMs: number;
  /** How often the lag is looked at while someone is held (and how long a look is trusted). */
  readonly pollMs?: number;
  /** The watched groups count as stalled once their committed offsets did not move for this long. */
  readonly stalledAfterMs?: number;
  readonly log: Logger;
  /** Where the holds are counted (the process's registry), labelled with `holder`. */
  readonly metrics?: { readonly registry: Metrics; readonly holder: string };
}

/** What one look at the watched groups found. */
interface Look {
  readonly at: number;
  readonly lag: number;
  /** The watched groups' committed offsets, summed: it grows while they get on with their backlog. */
  readonly committed: number;
}

/**
 * Lets background work wait while the write path has a backlog. A background consumer (the
 * indexer) calls `clear` before each batch: it returns at once unless the watched groups (the
 * converter's) are more than `lag` records behind **and** moving (a commit within
 * `stalledAfterMs`: a converter commits after each batch it stored). Then it holds the caller
 * until they are within `lag` again, so a burst is stored first and indexed after.
 *
 * A backlog that arrived since the last look (that look found the groups within `lag`) holds
 * callers even before the groups commit, for up to `stalledAfterMs`: a write path that was idle
 * has not committed for a while, and it is just taking its first batch. Judged by its commits
 * alone it would look stalled, and every background batch of the burst's first moments would go
 * through.
 *
 * A hold is for bursts, not for a write path that is always behind: once a backlog has held
 * background work for `maxHoldMs`, nobody is held again until that backlog was worked off
 * (within `lag`), and a steady overload costs the background one pause, not its progress. A
 * stalled write path (its process down, its database away) holds nobody: waiting would not
 * help it. A look that fails holds nobody either.
 *
 * The lag is read from the bus's own offsets (consumer-lag.ts), so it works whichever process
 * runs the watched groups. Callers held at once share one look.
 */
export class BacklogYield {
  private last: Look | undefined;
  /** When a look last found the watched groups' commits further on than the look before. */
  private movedAt = Number.NEGATIVE_INFINITY;
  private looking: Promise<Look | undefined> | undefined;
  /** When a look first found the backlog that the look before it did not; undefined while none arrived so. */
  private arrivedAt: number | undefined;
  /** When the backlog being worked off first held someone; undefined while there is none. */
  private backlogSince: number | undefined;
  private holding = false;
  private failing = false;
  private readonly pollMs: number;
  private readonly stalledAfterMs: number;
  private readonly series;

  constructor(
    private readonly retained: RetainedRecords,
    private readonly options: BacklogYieldOptions,
  ) {
    this.pollMs = options.pollMs ?? 500;
    this.stalledAfterMs = options.stalledAfterMs ?? 5_000;
    this.series = options.metrics && {
      labels: { holder: options.metrics.holder },
      held: options.metrics.registry.counter({
        name: 'memstream_background_held_seconds_total',
        help: 'Time background batches waited while the write path worked off a backlog, summed over the batches held',
        labelNames: ['holder'],
      }),
      holding: options.metrics.registry.gauge({
        name: 'memstream_background_holding',
        help: '1 while background batches are held for the write path',
        labelNames: ['holder'],
      }),
    };
    this.series?.holding.set(this.series.labels, 0);
  }

  /** Resolves with how long the caller was held; at once when the signal is (or becomes) aborted. */
  async clear(signal?: AbortSignal): Promise<number> {
    if (this.options.lag <= 0 || this.options.maxHoldMs <= 0) return 0;
    const started = Date.now();
    let held = false;
    while (!signal?.aborted && (await this.behind())) {
      held = true;
      try {
        await sleep(this.pollMs, undefined, { signal });
      } catch {
        break; // aborted: the caller is stopping
      }
    }
    const heldMs = Date.now() - started;
    if (held) this.series?.held.inc(this.series.labels, heldMs / 1000);
    return heldMs;
  }

  /** Whether to hold now, by a look at most pollMs old. */
  private async behind(): Promise<boolean> {
    const look = await this.look();
    if (look === undefined) return this.hold(false, 0);
    if (look.lag <= this.options.lag) {
      this.backlogSince = undefined;
      return this.hold(false, look.lag);
    }
    const stalled = look.at - this.movedAt >= this.stalledAfterMs;
    const justArrived = this.arrivedAt !== undefined && look.at - this.arrivedAt < this.stalledAfterMs;
    if (stalled && !justArrived) return this.hold(false, look.lag);
    this.backlogSince ??= look.at;
    return this.hold(look.at - this.backlogSince < this.options.maxHoldMs, look.lag);
  }

  /** Says so in the log when holding starts or ends. */
  private hold(now: boolean, lag: number): boolean {
    if (now !== this.holding) {
      this.holding = now;
      this.series?.holding.set(this.series.labels, now ? 1 : 0);
      this.options.log.info(
        { lag, limit: this.options.lag },
        now ? 'holding background work: the write path is behind' : 'background work goes on',
      );
    }
    return now;
  }

  private async look(): Promise<Look | undefined> {
    if (this.last !== undefined && Date.now() - this.last.at < this.pollMs) return this.last;
    this.looking ??= this.measure().finally(() => {
      this.looking = undefined;
    });
    return this.looking;
  }

  private async measure(): Promise<Look | undefined> {
    try {
      const groups = await consumerLag(this.retained, this.options.watched);
      const committed = groups.reduce((sum, g) => sum + g.partitions.reduce((n, p) => n + (p.committed ?? 0), 0), 0);
      const look = { at: Date.now(), lag: groups.reduce((n, g) => n + g.lag, 0), committed };
      if (this.last !== undefined && look.committed > this.last.committed) this.movedAt = look.at;
      if (look.lag <= this.options.lag) this.arrivedAt = undefined;
      else if (this.last !== undefined && this.last.lag <= this.options.lag) this.arrivedAt = look.at;
      this.last = look;
      this.failing = false;
      return look;
    } catch (err) {
      // said once a streak: the console's pipeline view shows the same offsets failing
      if (!this.failing) this.options.log.warn({ err }, 'could not read the write path backlog: holding nothing');
      this.failing = true;
      return undefined;
    }
  }
}
