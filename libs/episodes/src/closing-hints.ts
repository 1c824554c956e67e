import type { Fanout } from '@memstream/fanout';
import { EPISODE_CLOSING_CHANNEL, EpisodeClosing } from '@memstream/schemas';
import { safeJson } from './safe-json.js';

/** The API's side: this conversation has an episode to close now (see EpisodeClosing); how many extractors heard it. */
export function hintClosing(fanout: Fanout, conversationId: string): Promise<number> {
  const hint: EpisodeClosing = { conversation_id: conversationId };
  return fanout.publish(EPISODE_CLOSING_CHANNEL, JSON.stringify(hint));
}

/**
 * The extractor's side: `onHint` for each well-formed hint (anything else on the channel is
 * dropped: it is a hint, and the consumer closes the same episodes anyway). Resolves once
 * subscribed, with the function that unsubscribes.
 */
export function listenForClosingHints(
  fanout: Fanout,
  onHint: (conversationId: string) => void,
): Promise<() => Promise<void>> {
  return fanout.subscribe(EPISODE_CLOSING_CHANNEL, (message) => {
    const hint = EpisodeClosing.safeParse(safeJson(message));
    if (hint.success) onHint(hint.data.conversation_id);
  });
}
