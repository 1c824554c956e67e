import type { OpenMessage } from '@memstream/store';
import { closeEpisodes, estimateTokens, type BoundaryRules } from './boundaries.js';

/** What boundary detection knows of a conversation after message `seq` (closeEpisodes' loop state). */
interface SpanState {
  readonly seq: number;
  /** Messages in the episode still open, and their tokens. */
  readonly open: number;
  readonly tokens: number;
  /** The latest created_at seen in the span, closed episodes included (ms). */
  readonly latest: number;
}

/** A message as boundary detection reads it: its number, time (ms) and length in characters. */
export interface TrackedMessage {
  readonly seq: number;
  readonly createdAt: number;
  readonly chars: number;
}

/**
 * Saves the held EverMemOS write its read of the open span when the answer is already known.
 * Nearly every write closes nothing; whether it does follows from the state closeEpisodes carries
 * from one message to the next (messages in the open episode, their tokens, the latest time). Once
 * a read of the store gave that state for a conversation, each next message this process writes
 * there (the very next sequence number) steps it on, and a message that plainly closes nothing is
 * answered without a read. Everything else reads the store, as before: a message after one this
 * process did not write (another replica, another family), one that may close an episode (so the
 * wait is only ever for an episode the store says is due), and the first of each conversation.
 *
 * Like the read it saves, it is a guess about the extractor's work, which runs behind the store: a
 * flush, a deletion or an idle close elsewhere can only shorten the span, which closes less, except
 * that a shorter span can leave an earlier latest time when times run backwards, so a silence seen
 * from the store may go unseen here. Then the write answers `accumulated` while the extractor
 * closes the episode all the same; never a memory it did not make. This process's own flushes and
 * deletions drop what it knows.
 */
export class OpenSpanTracker {
  private readonly spans = new Map<string, SpanState>();

  constructor(
    private readonly rules: BoundaryRules,
    private readonly capacity = 10_000,
  ) {}

  /**
   * True when `m`, the message after the last one known here, closes nothing (and it is now the
   * last one known); undefined when the store has to be read to tell.
   */
  closesNothing(conversationId: string, m: TrackedMessage): true | undefined {
    const known = this.spans.get(conversationId);
    this.spans.delete(conversationId);
    if (known === undefined || known.seq !== m.seq - 1) return undefined;
    const cost = estimateTokens(m.chars);
    const open = known.open + 1;
    const tokens = known.tokens + cost;
    // closeEpisodes' four tests, in its order: a silence or a token overflow before the message
    // closes the episode it follows; a message or token cap with it closes the one it ends.
    if (known.open > 0 && m.createdAt - known.latest > this.rules.silenceMs) return undefined;
    if (open >= this.rules.maxMessages || tokens >= this.rules.maxTokens) return undefined;
    this.remember(conversationId, { seq: m.seq, open, tokens, latest: Math.max(known.latest, m.createdAt) });
    return true;
  }

  /**
   * True when message `seq`, the one after the last known here, is one no episode holds (an
   * agent-only message: migration 0012), so it only moves the count on; undefined as closesNothing.
   */
  passesOver(conversationId: string, seq: number): true | undefined {
    const known = this.spans.get(conversationId);
    this.spans.delete(conversationId);
    if (known === undefined || known.seq !== seq - 1) return undefined;
    this.remember(conversationId, { ...known, seq });
    return true;
  }

  /**
   * True when message `seq` is already in what is known here: the state was read, or stepped on,
   * through it or past it. Such a message adds nothing to the span, so it closes nothing new.
   */
  covers(conversationId: string, seq: number): boolean {
    const known = this.spans.get(conversationId);
    return known !== undefined && seq <= known.seq;
  }

  /** Learns the state after `seq` from the open span the store gave (from an episode's start through `seq`). */
  learn(conversationId: string, seq: number, span: readonly OpenMessage[]): void {
    const upTo = span.filter((m) => m.seq <= seq);
    if (upTo.at(-1)?.seq !== seq) return;
    const { open } = closeEpisodes(upTo, this.rules);
    this.remember(conversationId, {
      seq,
      open: open.length,
      tokens: open.reduce((sum, m) => sum + estimateTokens(m.chars), 0),
      latest: Math.max(...upTo.map((m) => m.created_at.getTime())),
    });
  }

  /** Forgets every conversation: after a flush or a deletion made here. */
  clear(): void {
    this.spans.clear();
  }

  /** Forgets one conversation: an episode of it was closed here by other means than its messages. */
  forget(conversationId: string): void {
    this.spans.delete(conversationId);
  }

  private remember(conversationId: string, state: SpanState): void {
    // A Map keeps insertion order, so the first key is the one used longest ago.
    if (this.spans.size >= this.capacity) this.spans.delete(this.spans.keys().next().value!);
    this.spans.set(conversationId, state);
  }
}
