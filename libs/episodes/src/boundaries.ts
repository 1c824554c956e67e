import type { CloseReason, NewEpisode, OpenMessage } from '@memstream/store';

export interface BoundaryRules {
  readonly maxMessages: number;
  readonly maxTokens: number;
  readonly silenceMs: number;
}

/** Rough token count of a message: about four characters a token for English, at least one. */
export function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

/**
 * Splits a conversation's open span (its messages after the last episode, in order) into the
 * episodes the rules close, and the rest, which stays open. Pure, so the rules are tested alone.
 *
 * - silence: a message more than `silenceMs` after the latest one before it starts a new episode
 *   (message times; the latest rather than the previous, so an out-of-order import is not a gap);
 * - message cap: the episode closes as it reaches `maxMessages`;
 * - token cap: it closes before the message that would take it past `maxTokens` (a single message
 *   over the cap is an episode of its own), so an extraction prompt stays within its budget.
 */
export function closeEpisodes(
  span: readonly OpenMessage[],
  rules: BoundaryRules,
): { closed: NewEpisode[]; open: OpenMessage[] } {
  const closed: NewEpisode[] = [];
  let current: OpenMessage[] = [];
  let tokens = 0;
  let latest = -Infinity;
  const close = (reason: CloseReason) => {
    if (current.length === 0) return;
    closed.push(episodeOf(current, reason));
    current = [];
    tokens = 0;
  };
  for (const m of span) {
    const at = m.created_at.getTime();
    const cost = estimateTokens(m.chars);
    if (current.length > 0 && at - latest > rules.silenceMs) close('silence');
    if (current.length > 0 && tokens + cost > rules.maxTokens) close('token_cap');
    current.push(m);
    tokens += cost;
    latest = Math.max(latest, at);
    if (current.length >= rules.maxMessages) close('message_cap');
    else if (tokens >= rules.maxTokens) close('token_cap');
  }
  return { closed, open: current };
}

/** An episode of consecutive open messages, closed for `reason`. */
export function episodeOf(messages: readonly OpenMessage[], reason: CloseReason): NewEpisode {
  const times = messages.map((m) => m.created_at.getTime());
  return {
    startSeq: messages[0]!.seq,
    endSeq: messages[messages.length - 1]!.seq,
    messageIds: messages.map((m) => m.message_id),
    startTime: new Date(Math.min(...times)),
    endTime: new Date(Math.max(...times)),
    reason,
  };
}
