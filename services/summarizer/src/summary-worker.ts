import type { Logger } from '@memstream/logging';
import type { Metrics } from '@memstream/metrics';
import {
  claimSummary,
  completeSummary,
  failStuckSummaries,
  failSummary,
  findSummary,
  findSummaryBacklog,
  lastSequence,
  messagesInRange,
  startSummary,
  type Store,
  type SummaryMemory,
} from '@memstream/store';
import type { Summarizer } from './summarizers/summarizer.js';
import { summaryWindow } from './window.js';
import { summaryMetricsOf, type SummaryMetrics } from './summary-metrics.js';
import { backoffDelayMs } from '@memstream/retry';

/** The audiences of a reader who may see only what everyone may: see audienceIn in @memstream/store. */
const EVERYONE: readonly string[] = [];

/** A claimed summary waiting to run, with the correlation id of the message that triggered it. */
interface Claimed {
  readonly row: SummaryMemory;
  readonly correlationId: string | undefined;
}

export interface SummarySettings {
  readonly windowSize: number;
  /** Summaries start once a conversation's last sequence number reaches this. */
  readonly summarizeAfterSeq: number;
  /** A 'processing' row older than this is taken as abandoned and its work redone. */
  readonly processingTimeoutMs: number;
  /** Summaries running at once in this process; claims beyond wait their turn. */
  readonly concurrency: number;
  readonly retryInitialMs: number;
  readonly retryMaxMs: number;
  /**
   * Least time between two claims of one conversation's summaries in this process; 0 claims on
   * every trigger. A trigger inside it is kept (the newest) and claimed when it ends, so the last
   * message is always summarized, at most this much later.
   */
  readonly minIntervalMs: number;
}

/** A conversation claimed less than minIntervalMs ago, and the newest trigger that came since. */
interface Spacing {
  readonly timer: NodeJS.Timeout;
  next?: { readonly lastSeq: number; readonly correlationId: string | undefined };
}

/**
 * Claims, runs and finishes summarizations. The claim is the database's (one 'processing' row
 * per conversation, whichever replica gets there first); the work runs in the background so a
 * slow model never holds up the consumer; a failure is recorded with a time to try again; and
 * `sweep` picks up what timed out, what finished backing off and what a lost trigger left.
 */
export class SummaryWorker {
  private readonly queue: Claimed[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly spaced = new Map<string, Spacing>();
  private readonly abort = new AbortController();
  private readonly metrics: SummaryMetrics;

  constructor(
    private readonly store: Store,
    private readonly summarizer: Summarizer,
    private readonly settings: SummarySettings,
    private readonly log: Logger,
    metrics: Metrics,
  ) {
    this.metrics = summaryMetricsOf(metrics);
  }

  /**
   * After a message with `lastSeq` was stored: claim a summary if one is due. The message's
   * correlation id, when it has one, is on every log line of the summary it causes.
   */
  async trigger(conversationId: string, lastSeq: number, correlationId?: string): Promise<void> {
    if (lastSeq < this.settings.summarizeAfterSeq || this.abort.signal.aborted) return;
    const spacing = this.spaced.get(conversationId);
    if (spacing) {
      if (!spacing.next || lastSeq >= spacing.next.lastSeq) spacing.next = { lastSeq, correlationId };
      return;
    }
    const window = summaryWindow(lastSeq, this.settings.windowSize);
    const claimed = await claimSummary(this.store, {
      conversationId,
      startSequence: window.start,
      endSequence: window.end,
    });
    if (!claimed) {
      this.log.debug(
        { conversationId, lastSeq, correlationId },
        'summarization already in progress, up to date, or backing off',
      );
      return;
    }
    this.space(conversationId);
    this.queue.push({ row: claimed, correlationId });
    this.pump();
  }

  /**
   * Holds the conversation's next claim back for minIntervalMs. Without it a conversation that
   * receives messages without pause is summarized again the moment each summary ends (the
   * catch-up), which with the offline summarizer is a busy loop of six statements per summary
   * competing with the writes themselves, and with a model one call per message.
   */
  private space(conversationId: string): void {
    if (this.settings.minIntervalMs <= 0) return;
    const spacing: Spacing = {
      timer: setTimeout(() => {
        this.spaced.delete(conversationId);
        const next = spacing.next;
        if (next === undefined) return;
        this.trigger(conversationId, next.lastSeq, next.correlationId).catch((err: unknown) =>
          this.log.warn({ err, conversationId }, 'could not claim a held-back summary; the sweep will'),
        );
      }, this.settings.minIntervalMs),
    };
    spacing.timer.unref();
    this.spaced.set(conversationId, spacing);
  }

  /** Frees stuck rows, then claims whatever is due; run periodically by every replica. */
  async sweep(): Promise<void> {
    const stuck = await failStuckSummaries(this.store, new Date(Date.now() - this.settings.processingTimeoutMs));
    for (const row of stuck)
      this.log.warn(
        { conversationId: row.conversation_id, memoryId: row.memory_id },
        'summarization timed out; retrying',
      );
    const backlog = await findSummaryBacklog(this.store, {
      minLastSeq: this.settings.summarizeAfterSeq,
      updatedSince: new Date(Date.now() - 24 * 3600_000),
      limit: 100,
    });
    for (const { conversation_id, last_seq } of backlog) await this.trigger(conversation_id, last_seq);
  }

  /** Stops taking work, waits for what runs, and hands back what was claimed but not started. */
  async stop(): Promise<void> {
    this.abort.abort();
    for (const { timer } of this.spaced.values()) clearTimeout(timer);
    this.spaced.clear();
    const unstarted = this.queue.splice(0).map((c) => c.row);
    await Promise.all(
      unstarted.map((row) =>
        failSummary(this.store, row.memory_id, 'process stopped before it ran', new Date()).catch(() => undefined),
      ),
    );
    await Promise.allSettled([...this.running]);
  }

  private pump(): void {
    while (this.running.size < this.settings.concurrency && this.queue.length > 0) {
      const claimed = this.queue.shift()!;
      const job: Promise<void> = this.run(claimed).finally(() => {
        this.running.delete(job);
        this.pump();
      });
      this.running.add(job);
    }
  }

  private async run({ row: claimed, correlationId }: Claimed): Promise<void> {
    const log = this.log.child({ conversationId: claimed.conversation_id, memoryId: claimed.memory_id, correlationId });
    const started = Date.now();
    const observe = (outcome: 'completed' | 'failed') =>
      this.metrics.generationDuration.observe(
        { summarizer: this.summarizer.name, outcome },
        (Date.now() - started) / 1000,
      );
    const row = await startSummary(this.store, claimed).catch((err: unknown) => {
      log.warn({ err }, 'could not start the summary; its row will time out and be redone');
      return undefined;
    });
    if (row === undefined) {
      log.debug('summary no longer processing (timed out); not run');
      return;
    }
    if (row === 'superseded') {
      // The memory that made this one pointless finished while this was claimed, so its own
      // catch-up found the conversation busy: catch up here instead.
      log.debug('summary superseded before it ran');
      await this.catchUp(claimed.conversation_id, claimed.end_sequence);
      return;
    }
    try {
      const base = row.base_memory_id === null ? undefined : await findSummary(this.store, row.base_memory_id);
      // A base entirely before the window would only bring content the summary must drop.
      const previous =
        this.summarizer.incremental && base && base.end_sequence >= row.start_sequence - 1
          ? { text: base.memory_text, start: base.start_sequence, end: base.end_sequence }
          : null;
      const from = previous ? previous.end + 1 : row.start_sequence;
      // Only what every reader of the conversation may see: a summary is shown to all of them, so
      // agent-only messages (an agent's working memory, `visibility: agent`) never enter one.
      const messages = await messagesInRange(this.store, row.conversation_id, from, row.end_sequence, EVERYONE);
      const { text } =
        messages.length === 0
          ? { text: previous?.text ?? '' }
          : await this.summarizer.summarize({
              start: row.start_sequence,
              end: row.end_sequence,
              previous,
              messages,
              signal: this.abort.signal,
            });
      const ms = Date.now() - started;
      if (!(await completeSummary(this.store, row.memory_id, text, ms))) {
        observe('failed');
        log.warn('summary finished after its row timed out; discarded');
        return;
      }
      // logged before it is counted: whoever sees the count finds the line written
      log.info(
        { start: row.start_sequence, end: row.end_sequence, ms },
        `Summarized messages ${row.start_sequence}-${row.end_sequence} for ${row.conversation_id} in ${ms}ms`,
      );
      observe('completed');
      if (row.start_sequence > 0) {
        log.info(
          { dropped: [0, row.start_sequence - 1] },
          `Sliding window: dropping seq 0-${row.start_sequence - 1} for ${row.conversation_id}`,
        );
      }
    } catch (err) {
      observe('failed');
      const delay = backoffDelayMs(
        { initialDelayMs: this.settings.retryInitialMs, maxDelayMs: this.settings.retryMaxMs },
        row.attempts,
      );
      await failSummary(
        this.store,
        row.memory_id,
        err instanceof Error ? err.message : String(err),
        new Date(Date.now() + delay),
      ).catch((failErr: unknown) => log.error({ err: failErr }, 'could not record the failure; the row will time out'));
      log.warn({ err, attempt: row.attempts, retryInMs: delay }, 'summarization failed; will retry');
      return;
    }
    // Messages that arrived while this ran found the conversation busy: catch up now.
    await this.catchUp(row.conversation_id, row.end_sequence);
  }

  private async catchUp(conversationId: string, end: number): Promise<void> {
    const last = await lastSequence(this.store, conversationId).catch(() => undefined);
    if (last !== undefined && last > end) await this.trigger(conversationId, last).catch(() => undefined);
  }
}
