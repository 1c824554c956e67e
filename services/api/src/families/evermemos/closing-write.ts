import { closedBy, type BoundaryRules, type OpenSpanTracker, type TrackedMessage } from '@memstream/episodes';
import type { EpisodicMemory } from '@memstream/schemas';
import { episodesHolding, memoriesOfEpisodes, spanThrough, type Store } from '@memstream/store';
import type { ExtractionNotices } from './extraction-notices.js';

/** What a stored message's write answer says of memory formation. */
export interface Formation {
  /** `accumulated`: it closed no episode; `extracted`: it did, and these are the memories made; `extracting`: not made in time. */
  readonly status: 'accumulated' | 'extracted' | 'extracting';
  readonly memories: EpisodicMemory[];
}

const ACCUMULATED: Formation = { status: 'accumulated', memories: [] };

/**
 * EverMemOS answers a message with the memories it made when the message closed an episode
 * (its boundary detection runs inside the call). Here boundaries and extraction run behind the
 * store, in the extractor, so the answer tells from the stored span whether this message closed
 * an episode by the rules the extractor applies (one read of at most an episode's messages, saved
 * when this server's own writes already tell: OpenSpanTracker), and
 * only then asks the extractor to close it now (it would otherwise wait for its consumer's next
 * batch) and waits, up to `timeoutMs`, for its memories. A message that
 * closes nothing, the common case, answers at once. A concurrent deletion or flush can make the
 * guess wrong; then the wait runs out and the answer says `extracting`, never a wrong memory.
 */
export async function formationOf(
  deps: { store: Store; episodeRules: BoundaryRules },
  notices: ExtractionNotices,
  spans: OpenSpanTracker,
  conversationId: string,
  message: TrackedMessage,
  timeoutMs: number,
): Promise<Formation> {
  const seq = message.seq;
  if (spans.closesNothing(conversationId, message)) return ACCUMULATED;
  const limit = 2 * deps.episodeRules.maxMessages + 2;
  const span = await spanThrough(deps.store, conversationId, seq, limit);
  // A span this long means the extractor is far behind (or the message is not episode material):
  // the guess would be a guess, so the write answers as one that closed nothing.
  if (span.length >= limit) return ACCUMULATED;
  spans.learn(conversationId, seq, span);
  const closing = closedBy(span, seq, deps.episodeRules);
  if (closing.length === 0) return ACCUMULATED;
  const ends = closing.map((e) => e.endSeq);
  const listening = timeoutMs > 0 ? await notices() : undefined;
  // no extractor to hear the hint (none deployed, or restarting): answer with what is there now
  const waiter = listening && (await listening.askToClose(conversationId)) ? listening : undefined;
  const episodes = waiter
    ? await waiter.untilHeldAndExtracted(deps.store, conversationId, ends, timeoutMs)
    : await episodesHolding(deps.store, conversationId, ends);
  const extracted = episodes.filter((e) => e.status === 'extracted');
  const complete = ends.every((s) => extracted.some((e) => e.start_seq <= s && s <= e.end_seq));
  if (!complete) return { status: 'extracting', memories: [] };
  return {
    status: 'extracted',
    memories: await memoriesOfEpisodes(
      deps.store,
      extracted.map((e) => e.id),
    ),
  };
}
