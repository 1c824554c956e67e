import type { NewEpisode, OpenMessage } from '@memstream/store';
import { closeEpisodes, type BoundaryRules } from './boundaries.js';

/**
 * The episodes the rules close because message `seq` arrived: a silence or token cap before it
 * closes the episode it follows, a message or token cap after it closes the one it ends. `span`
 * runs from where the episode before it began (later messages are ignored). The rules are
 * decided message by message, so what closes without `seq` is a prefix of what closes with it,
 * and the difference is this message's doing. Topic ends, flushes and idleness are not rules a
 * message triggers, so they are never its doing.
 */
export function closedBy(span: readonly OpenMessage[], seq: number, rules: BoundaryRules): NewEpisode[] {
  const upTo = span.filter((m) => m.seq <= seq);
  if (upTo[upTo.length - 1]?.seq !== seq) return [];
  const before = closeEpisodes(upTo.slice(0, -1), rules).closed.length;
  return closeEpisodes(upTo, rules).closed.slice(before);
}
