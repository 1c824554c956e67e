import type { Fanout } from '@memstream/fanout';
import { EPISODES_EXTRACTED_CHANNEL, EpisodesExtracted } from '@memstream/schemas';
import { episodesHolding, listEpisodesByIds, type Episode, type Queryable } from '@memstream/store';
import { hintClosing } from './closing-hints.js';
import { safeJson } from './safe-json.js';

/** The time a wait reads and the timers it sets; injected so a test moves time by hand. */
export interface WaitClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface ExtractionWaiterOptions {
  /**
   * A fan-out notice can be lost (Redis reconnecting, an extractor that could not publish), so a
   * waiting call also reads again this often: a lost notice costs this much delay at most.
   */
  readonly recheckMs?: number;
  readonly clock?: WaitClock;
}

/** Tells every waiter that these episodes, all of one conversation, have their memories; the extractor's side. */
export function announceExtracted(
  fanout: Fanout,
  episodeIds: readonly number[],
  conversationId?: string,
): Promise<void> {
  if (episodeIds.length === 0) return Promise.resolve();
  const notice: EpisodesExtracted = {
    episode_ids: [...episodeIds],
    ...(conversationId ? { conversation_id: conversationId } : {}),
  };
  return fanout.publish(EPISODES_EXTRACTED_CHANNEL, JSON.stringify(notice)).then(() => undefined);
}

/**
 * Holds a call until episodes are extracted, woken by the extractor's notice instead of polling
 * the store: each wait reads the episodes once, then again only when a notice names one of them
 * (or the re-check comes due), and answers with them as they stand when all are extracted, when
 * its time is up, or when the waiter stops. One subscription per process serves every wait.
 */
export class ExtractionWaiter {
  /** Wakes by episode id, and by conversation (conversationKey) for episodes whose ids are not known yet. */
  private readonly waiting = new Map<number | string, Set<() => void>>();
  private readonly recheckMs: number;
  private readonly clock: WaitClock;
  private stopped = false;

  private constructor(
    private readonly fanout: Fanout,
    options: ExtractionWaiterOptions,
  ) {
    this.recheckMs = options.recheckMs ?? 1_000;
    this.clock = options.clock ?? REAL_CLOCK;
  }

  /** Subscribes to the extractor's notices; `stop` unsubscribes and answers every wait at once. */
  static async listen(
    fanout: Fanout,
    options: ExtractionWaiterOptions = {},
  ): Promise<{ waiter: ExtractionWaiter; stop: () => Promise<void> }> {
    const waiter = new ExtractionWaiter(fanout, options);
    const unsubscribe = await fanout.subscribe(EPISODES_EXTRACTED_CHANNEL, (message) => waiter.receive(message));
    return {
      waiter,
      stop: async () => {
        waiter.stopped = true;
        for (const wakes of waiter.waiting.values()) for (const wake of wakes) wake();
        await unsubscribe();
      },
    };
  }

  /**
   * Asks the extractor to close this conversation's due episodes now, for a write about to wait
   * for them (see EpisodeClosing). False when no extractor is subscribed to hear it (none runs, or
   * all are restarting): nothing would make the memories in time, so the write need not wait.
   * A failed publish is not that: the fan-out is down, not the extractor, and the wait stands.
   */
  async askToClose(conversationId: string): Promise<boolean> {
    return hintClosing(this.fanout, conversationId).then(
      (heard) => heard > 0,
      () => true,
    );
  }

  /** The episodes of `ids`, read when every one is extracted or after `timeoutMs` at the latest. */
  untilExtracted(store: Queryable, ids: readonly number[], timeoutMs: number): Promise<Episode[]> {
    return this.until(ids, () => listEpisodesByIds(store, ids), allExtracted, timeoutMs);
  }

  /**
   * The episodes holding messages `seqs` of a conversation, read when an extracted episode holds
   * each one, or after `timeoutMs` at the latest. For episodes that may not exist yet (a write that
   * closes one answers before the extractor has stored it), so any notice of the conversation wakes
   * this wait (and any notice that names no conversation).
   */
  untilHeldAndExtracted(
    store: Queryable,
    conversationId: string,
    seqs: readonly number[],
    timeoutMs: number,
  ): Promise<Episode[]> {
    const done = (episodes: readonly Episode[]) =>
      allExtracted(episodes) && seqs.every((s) => episodes.some((e) => e.start_seq <= s && s <= e.end_seq));
    return this.until(
      [conversationKey(conversationId)],
      () => episodesHolding(store, conversationId, seqs),
      done,
      timeoutMs,
    );
  }

  private async until(
    keys: ReadonlyArray<number | string>,
    read: () => Promise<Episode[]>,
    done: (episodes: readonly Episode[]) => boolean,
    timeoutMs: number,
  ): Promise<Episode[]> {
    const deadline = this.clock.now() + timeoutMs;
    let noticed = false;
    let wake: (() => void) | undefined;
    const onNotice = () => {
      noticed = true;
      wake?.();
    };
    // Listening before the first read: a notice between that read and the wait is not missed.
    for (const id of keys) {
      const wakes = this.waiting.get(id) ?? new Set();
      wakes.add(onNotice);
      this.waiting.set(id, wakes);
    }
    try {
      let episodes = await read();
      while (!done(episodes) && !this.stopped) {
        const left = deadline - this.clock.now();
        if (left <= 0) break;
        if (!noticed) {
          await new Promise<void>((resolve) => {
            const timer = this.clock.setTimeout(resolve, Math.min(left, this.recheckMs));
            wake = () => {
              this.clock.clearTimeout(timer);
              resolve();
            };
          });
          wake = undefined;
        }
        noticed = false;
        episodes = await read();
      }
      return episodes;
    } finally {
      for (const id of keys) {
        const wakes = this.waiting.get(id);
        wakes?.delete(onNotice);
        if (wakes?.size === 0) this.waiting.delete(id);
      }
    }
  }

  private receive(message: string): void {
    if (this.waiting.size === 0) return;
    const notice = EpisodesExtracted.safeParse(safeJson(message));
    if (!notice.success) return;
    const { episode_ids: ids, conversation_id: conversationId } = notice.data;
    const keys: Array<number | string> = [...ids];
    if (conversationId !== undefined) keys.push(conversationKey(conversationId));
    else for (const key of this.waiting.keys()) if (typeof key === 'string') keys.push(key);
    for (const key of keys) for (const wake of this.waiting.get(key) ?? []) wake();
  }
}

/** The key of waits for a conversation's episodes whose ids are not known yet. */
function conversationKey(conversationId: string): string {
  return `c:${conversationId}`;
}

function allExtracted(episodes: readonly Episode[]): boolean {
  return episodes.every((e) => e.status === 'extracted');
}

const REAL_CLOCK: WaitClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
