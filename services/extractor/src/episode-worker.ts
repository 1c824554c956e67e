import { backoffDelayMs } from '@memstream/retry';
import { closeSpan, closeSpanIn, episodeOf, OpenSpanTracker, type BoundaryRules } from '@memstream/episodes';
import type { ChatModel } from '@memstream/llm';
import type { Logger } from '@memstream/logging';
import { audienceOfMessage, type CanonicalMessage, type EpisodicMemory } from '@memstream/schemas';
import {
  claimDueEpisodes,
  claimEpisodes,
  completeEpisode,
  failEpisode,
  findEffectiveConversationMeta,
  idleConversations,
  insertEpisodes,
  messagesByIds,
  openSpan,
  withEpisodeLock,
  type Episode,
  type Store,
} from '@memstream/store';
import { validZone } from './dates.js';
import { participantsOf, type Extractor } from './extractors/extractor.js';
import { topicEnd } from './topic-judge.js';
import type { ExtractionMetrics } from './extraction-metrics.js';

export interface EpisodeSettings {
  readonly rules: BoundaryRules;
  /** 0: open episodes are never closed for idleness. */
  readonly idleCloseMs: number;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly retryInitialMs: number;
  readonly retryMaxMs: number;
  /** With a model: judge topic ends once an open episode has this many messages. */
  readonly topicMinMessages: number;
}

type Task = { kind: 'extract'; id: number; group: string } | { kind: 'judge'; conversationId: string };

/**
 * Closes episodes and extracts their memories. Boundary detection runs in the consumer's handler
 * (a few queries under the conversation's lock); extraction and topic judgement, which wait on a
 * model, run in the background with bounded concurrency, so a slow model never holds a partition.
 * The database is the queue: a closed episode is stored as pending before the consumer commits,
 * and `sweep` takes whatever is due (a failure backing off, an episode a crashed worker leased,
 * one a flush or a deletion left pending), so nothing closed is ever dropped.
 */
export class EpisodeWorker {
  private readonly queue: Task[] = [];
  private readonly queued = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  /** The open span's last seq each conversation was judged at: a judgement per growth, not per call. */
  private readonly judgedAt = new Map<string, number>();
  /** What the stored messages this worker saw tell of each conversation's open episode. */
  private readonly spans: OpenSpanTracker;

  constructor(
    private readonly store: Store,
    private readonly extractor: Extractor,
    private readonly topicModel: ChatModel | undefined,
    private readonly settings: EpisodeSettings,
    private readonly publish: (memories: EpisodicMemory[]) => Promise<void>,
    private readonly log: Logger,
    private readonly metrics: ExtractionMetrics,
    /** Tells waiting calls (a flush in sync mode) that these episodes have their memories; best effort. */
    private readonly announce: (episodeIds: number[], conversationId: string) => Promise<void> = async () => undefined,
  ) {
    this.spans = new OpenSpanTracker(settings.rules);
  }

  /**
   * After these messages were stored (a consumer's batch, in each conversation's order): as
   * advance, but a conversation whose new messages plainly close nothing is not read. Nearly every
   * batch closes nothing, and the span read per conversation and batch was the extractor's most
   * frequent statement. OpenSpanTracker tells from the messages themselves, once a read gave it the
   * state they follow on from; a conversation it cannot tell about (first seen here, a gap in the
   * numbers, a message that may close an episode) is read as before. With a topic model every
   * conversation is read, as the judgement needs the span's length.
   */
  async advanceMessages(messages: readonly CanonicalMessage[]): Promise<void> {
    const byConversation = new Map<string, CanonicalMessage[]>();
    for (const m of messages) {
      const list = byConversation.get(m.conversation_id);
      if (list) list.push(m);
      else byConversation.set(m.conversation_id, [m]);
    }
    const toRead: Array<[string, number]> = [];
    for (const [conversationId, list] of byConversation) {
      list.sort((a, b) => a.seq - b.seq);
      const last = list[list.length - 1]!.seq;
      if (this.topicModel || !list.every((m) => this.steps(conversationId, m))) toRead.push([conversationId, last]);
    }
    for (const [conversationId, last] of toRead) {
      const { span } = await this.advanceOne(conversationId);
      this.spans.learn(conversationId, last, span);
    }
  }

  /**
   * Closes what the rules close in these conversations now, off the message stream: a closing hint
   * (a held write waits for the episode its message closed). The hint says an episode is due, so
   * the span is read under the lock at once, without closeSpan's unlocked look first. That read is
   * what the tracker knows next: the consumer's batch that brings the same messages later steps
   * over them instead of reading the span again.
   */
  async advance(conversationIds: Iterable<string>): Promise<void> {
    for (const conversationId of conversationIds) {
      this.spans.forget(conversationId);
      const { span } = await this.advanceOne(conversationId, 'locked');
      const last = span.at(-1)?.seq;
      if (last !== undefined) this.spans.learn(conversationId, last, span);
    }
  }

  private async advanceOne(conversationId: string, read: 'unlocked first' | 'locked' = 'unlocked first') {
    const rules = this.settings.rules;
    const outcome =
      read === 'locked'
        ? await this.store.transaction((tx) => closeSpanIn(tx, conversationId, rules))
        : await closeSpan(this.store, conversationId, rules);
    const { closed, open } = outcome;
    this.closed(closed);
    if (closed.length > 0)
      this.log.debug(
        { conversationId, episodes: closed.map((e) => [e.start_seq, e.end_seq, e.close_reason]) },
        'episodes closed',
      );
    if (this.topicModel && open >= this.settings.topicMinMessages) this.enqueue({ kind: 'judge', conversationId });
    return outcome;
  }

  /** Steps the tracker over one stored message; false when the store must be read. */
  private steps(conversationId: string, m: CanonicalMessage): boolean {
    // Already in a read made after it was stored (a closing hint's, or a redelivered batch):
    // whatever it closed is closed.
    if (this.spans.covers(conversationId, m.seq)) return true;
    if (audienceOfMessage(m.metadata) !== null) return this.spans.passesOver(conversationId, m.seq) === true;
    return (
      this.spans.closesNothing(conversationId, {
        seq: m.seq,
        createdAt: Date.parse(m.created_at),
        // UTF-16 units: never fewer than the characters the store counts, so tokens are never underestimated
        chars: m.content.length,
      }) === true
    );
  }

  /** Closes idle conversations' open spans and takes due episodes; run on a timer. */
  async sweep(): Promise<void> {
    if (this.abort.signal.aborted) return;
    if (this.settings.idleCloseMs > 0) {
      for (const conversationId of await idleConversations(this.store, this.settings.idleCloseMs, 100)) {
        this.spans.forget(conversationId);
        this.closed((await closeSpan(this.store, conversationId, this.settings.rules, 'idle')).closed);
      }
    }
    const room = this.settings.concurrency - this.running.size;
    if (room <= 0) return;
    for (const e of await claimDueEpisodes(this.store, { limit: room, leaseMs: this.settings.leaseMs }))
      this.runClaimed(e);
  }

  /** Stops taking work and waits for what runs (their model calls are aborted). */
  async stop(): Promise<void> {
    this.abort.abort(new Error('extractor stopping'));
    this.queue.length = 0;
    await Promise.allSettled([...this.running]);
  }

  /** Newly closed episodes: counted, and queued for extraction. */
  private closed(episodes: readonly Episode[]): void {
    for (const e of episodes) {
      this.metrics.episodesClosed.inc({ reason: e.close_reason });
      this.enqueue({ kind: 'extract', id: e.id, group: e.group_key });
    }
  }

  private enqueue(task: Task): void {
    const key = task.kind === 'extract' ? `e:${task.id}` : `j:${task.conversationId}`;
    if (this.abort.signal.aborted || this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(task);
    this.pump();
  }

  private pump(): void {
    while (this.running.size < this.settings.concurrency && this.queue.length > 0) {
      const task = this.queue.shift()!;
      this.queued.delete(task.kind === 'extract' ? `e:${task.id}` : `j:${task.conversationId}`);
      const run = (task.kind === 'extract' ? this.extractById(task.id, task.group) : this.judge(task.conversationId))
        .catch((err: unknown) => this.log.warn({ err, task }, 'episode task failed; the sweep retries it'))
        .finally(() => {
          this.running.delete(run);
          this.pump();
        });
      this.running.add(run);
    }
  }

  private runClaimed(episode: Episode): void {
    const run = this.extract(episode)
      .catch((err: unknown) => this.log.warn({ err, episode: episode.id }, 'extraction failed'))
      .finally(() => {
        this.running.delete(run);
        this.pump();
      });
    this.running.add(run);
  }

  private async extractById(id: number, group: string): Promise<void> {
    const [episode] = await claimEpisodes(this.store, { group, ids: [id], limit: 1, leaseMs: this.settings.leaseMs });
    if (episode) await this.extract(episode);
  }

  /** Runs one claimed episode to extracted, or to failed with a time to try again. */
  private async extract(episode: Episode): Promise<void> {
    const log = this.log.child({
      episode: episode.id,
      conversationId: episode.conversation_id,
      version: episode.version,
    });
    const started = performance.now();
    const observe = (outcome: 'extracted' | 'discarded' | 'failed') =>
      this.metrics.duration.observe({ extractor: this.extractor.name, outcome }, (performance.now() - started) / 1000);
    try {
      const [messages, meta] = await Promise.all([
        messagesByIds(this.store, episode.conversation_id, episode.message_ids),
        findEffectiveConversationMeta(this.store, episode.conversation_id),
      ]);
      if (messages.length === 0) {
        // Every message went between the claim and now: the deletion removes the episode itself.
        log.debug('episode has no messages left; skipped');
        return;
      }
      const memories = await this.extractor.extract({ episode, messages, meta, signal: this.abort.signal });
      const participants = participantsOf(messages).map((p) => p.id);
      const stored = await this.store.transaction((tx) =>
        completeEpisode(tx, episode, memories, { extractor: this.extractor.name, participants }),
      );
      if (!stored) {
        observe('discarded');
        log.info('episode changed during extraction (a deletion); the new version is extracted next');
        return;
      }
      observe('extracted');
      log.info(
        { memories: stored.length, ms: Math.round(performance.now() - started), extractor: this.extractor.name },
        'episode extracted',
      );
      await this.announce([episode.id], episode.conversation_id).catch((err: unknown) =>
        log.warn({ err }, 'announcing the extraction failed; a waiting flush sees it at its next re-check'),
      );
      await this.publish(stored).catch((err: unknown) =>
        log.warn({ err }, 'publishing extracted memories failed; the indexer sweep finds them'),
      );
    } catch (err) {
      if (this.abort.signal.aborted) return; // the lease runs out and another worker takes it
      observe('failed');
      const delay = backoffDelayMs(
        { initialDelayMs: this.settings.retryInitialMs, maxDelayMs: this.settings.retryMaxMs },
        episode.attempts,
      );
      await failEpisode(
        this.store,
        episode,
        err instanceof Error ? err.message : String(err),
        new Date(Date.now() + delay),
      );
      log.warn(
        { err, attempts: episode.attempts, retryInMs: delay },
        'extraction failed; episode parked and retried later',
      );
    }
  }

  /** Asks the model whether the open span's topic ended; closes the episode there if so. */
  private async judge(conversationId: string): Promise<void> {
    const model = this.topicModel;
    if (!model) return;
    const span = await openSpan(this.store, conversationId, this.settings.rules.maxMessages);
    const last = span[span.length - 1];
    if (span.length < this.settings.topicMinMessages || !last || this.judgedAt.get(conversationId) === last.seq) return;
    const [messages, meta] = await Promise.all([
      messagesByIds(
        this.store,
        conversationId,
        span.map((m) => m.message_id),
      ),
      findEffectiveConversationMeta(this.store, conversationId),
    ]);
    const end = await topicEnd(model, messages, validZone(meta?.default_timezone), this.abort.signal);
    this.judgedAt.set(conversationId, last.seq);
    if (end === undefined) return;
    const closed = await withEpisodeLock(this.store, conversationId, async (tx) => {
      // Close only if the span still starts where it did when the model read it.
      const now = await openSpan(tx, conversationId, end);
      if (now[0]?.seq !== span[0]!.seq || now.length < end) return [];
      return insertEpisodes(tx, conversationId, [episodeOf(now.slice(0, end), 'topic')]);
    });
    this.closed(closed);
    if (closed.length > 0) this.log.info({ conversationId, messages: end }, 'episode closed at a topic end');
  }
}
