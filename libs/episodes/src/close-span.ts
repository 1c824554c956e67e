import {
  insertEpisodes,
  lockEpisodes,
  openSpan,
  type CloseReason,
  type OpenMessage,
  type Episode,
  type Queryable,
  type Store,
} from '@memstream/store';
import { closeEpisodes, episodeOf, type BoundaryRules } from './boundaries.js';

export interface SpanOutcome {
  /** Episodes this call closed (none when another replica closed them first). */
  readonly closed: Episode[];
  /** Messages still open after it. */
  readonly open: number;
  /**
   * The last open span it read, from an episode's start (before the episodes it closed were
   * taken out): what OpenSpanTracker learns from. Empty when it read none to the end.
   */
  readonly span: readonly OpenMessage[];
}

/**
 * Applies the boundary rules to a conversation's open span and stores the episodes they close,
 * under the conversation's episode lock. With `closeRest`, whatever stays open is closed too,
 * for that reason (a flush, or an idle conversation). Reads the span in chunks, so a backlog of
 * any size (a consumer that was down) is worked through.
 */
export async function closeSpan(
  store: Store,
  conversationId: string,
  rules: BoundaryRules,
  closeRest?: CloseReason,
): Promise<SpanOutcome> {
  if (closeRest === undefined) {
    // Most calls (one per stored batch of a conversation) close nothing: an episode ends once
    // every fifty messages or so. Those are decided on one unlocked read instead of a transaction
    // of four statements. That is safe because a later message triggers its own call: a span read
    // before a concurrent append is as good as the call made before that append, and whatever
    // closes meanwhile is closed under the lock, as below.
    const chunk = chunkOf(rules);
    const span = await openSpan(store, conversationId, chunk);
    if (span.length < chunk && closeEpisodes(span, rules).closed.length === 0)
      return { closed: [], open: span.length, span };
  }
  return store.transaction((tx) => closeSpanIn(tx, conversationId, rules, closeRest));
}

function chunkOf(rules: BoundaryRules): number {
  return Math.max(5_000, rules.maxMessages * 2);
}

/** closeSpan inside a transaction the caller holds (a flush records its outcome in it); takes the lock itself. */
export async function closeSpanIn(
  tx: Queryable,
  conversationId: string,
  rules: BoundaryRules,
  closeRest?: CloseReason,
): Promise<SpanOutcome> {
  await lockEpisodes(tx, conversationId);
  const chunk = chunkOf(rules);
  const closed: Episode[] = [];
  for (;;) {
    const span = await openSpan(tx, conversationId, chunk);
    const { closed: spans, open } = closeEpisodes(span, rules);
    const full = span.length === chunk;
    if (closeRest !== undefined && !full && open.length > 0) spans.push(episodeOf(open, closeRest));
    closed.push(...(await insertEpisodes(tx, conversationId, spans)));
    if (!full || spans.length === 0)
      return { closed, open: closeRest !== undefined && !full ? 0 : open.length, span: full ? [] : span };
  }
}
