import type { Fanout } from '@memstream/fanout';
import { ACCESS_CHANGED_CHANNEL, AccessChanged } from '@memstream/schemas';
import type { Logger } from '@memstream/logging';
import { startPeriodicJob, type PeriodicJob } from '@memstream/runtime';
import { accessLevelsOf, groupOfConversation, type Store } from '@memstream/store';

/** One open stream of a person: what it reads, whose it is, and how it ends. */
interface Watched {
  readonly conversationId: string;
  readonly userId: string;
  readonly end: () => void;
}

/**
 * Keeps a person's open streams (ARK SSE, the response resumer) within their access after they
 * opened: a stream is authorized when it opens, and membership can change while it is open.
 *
 * The converter tells every replica which groups changed (ACCESS_CHANGED_CHANNEL); each open
 * stream of a person in one of them reads the person's level again and ends when it is gone. The
 * notice is a pub/sub message and can be lost (Redis reconnecting, a publish that failed), so
 * every stream is also re-checked each `recheckMs`, all of them in one statement: a missed notice
 * delays the end by that much at most. Agents and the local user reach everything: their streams
 * are not watched.
 *
 * Nothing is subscribed until the first stream is watched: registering the routes touches no
 * dependency (the OpenAPI document is produced that way).
 */
export class StreamAccess {
  private readonly byGroup = new Map<string, Set<Watched>>();
  private started: Promise<void> | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private recheckJob: PeriodicJob | undefined;

  constructor(
    private readonly deps: {
      store: Store;
      fanout: Fanout;
      recheckMs: number;
      log: Pick<Logger, 'warn' | 'debug'>;
    },
  ) {}

  /**
   * Ends the stream (`end`) once `userId` may no longer read `conversationId`; returns the function
   * that stops watching (call it when the stream ends for any reason).
   */
  async watch(conversationId: string, userId: string, end: () => void): Promise<() => void> {
    await (this.started ??= this.start());
    const groupId = (await groupOfConversation(this.deps.store, conversationId)) ?? conversationId;
    const watched: Watched = { conversationId, userId, end };
    let set = this.byGroup.get(groupId);
    if (!set) this.byGroup.set(groupId, (set = new Set()));
    set.add(watched);
    return () => {
      set.delete(watched);
      if (set.size === 0 && this.byGroup.get(groupId) === set) this.byGroup.delete(groupId);
    };
  }

  async close(): Promise<void> {
    await this.recheckJob?.stop();
    await this.started;
    await this.unsubscribe?.().catch((err: unknown) =>
      this.deps.log.warn({ err }, 'could not unsubscribe from access changes'),
    );
  }

  private async start(): Promise<void> {
    // The backstop: one statement per replica per interval however many streams are open, never
    // two at once (the periodic job waits for a run in progress).
    this.recheckJob ??= startPeriodicJob(
      { name: 'stream access re-check', everyMs: this.deps.recheckMs, log: this.deps.log },
      () => this.recheck([...this.byGroup.values()].flatMap((s) => [...s])),
    );
    try {
      this.unsubscribe = await this.deps.fanout.subscribe(ACCESS_CHANGED_CHANNEL, (message) => {
        const notice = AccessChanged.safeParse(safeJson(message));
        if (!notice.success) return;
        void this.recheck(notice.data.group_ids.flatMap((g) => [...(this.byGroup.get(g) ?? [])]));
      });
    } catch (err) {
      // Streams still open, held by the periodic re-check alone; the next stream to open subscribes again.
      this.started = undefined;
      this.deps.log.warn({ err }, 'could not subscribe to access changes; open streams rely on the periodic re-check');
    }
  }

  private async recheck(streams: readonly Watched[]): Promise<void> {
    if (streams.length === 0) return;
    try {
      const levels = await accessLevelsOf(this.deps.store, streams);
      streams.forEach((s, i) => {
        if (levels[i] === undefined) s.end();
      });
    } catch (err) {
      // The streams stay open until a check succeeds: the next notice, or the next tick.
      this.deps.log.warn({ err, streams: streams.length }, 'stream access re-check failed');
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
