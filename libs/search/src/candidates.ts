import type { NeighbourHit, SearchHit, TurnContext } from '@memstream/store';
import { messageKey, type MemoryCandidate, type MessageCandidate } from './rank.js';

/**
 * The contextual ranking's candidates from the two methods' lists (over messages and memories
 * alike) and the searched turns' context: each message once, with the score each method gave it;
 * the neighbours no method returned, with none; each memory with the keys of its source turns.
 * `waiting`: the message rows with no vector yet (messagesWithoutVectors).
 */
export function contextualCandidates(
  keyword: readonly SearchHit[],
  vector: readonly SearchHit[],
  context: { turns: readonly TurnContext[]; neighbours: readonly NeighbourHit[] },
  waiting: ReadonlySet<string> = new Set(),
): { messages: MessageCandidate[]; memories: MemoryCandidate[]; participants: Set<string> } {
  const turns = new Map(context.turns.map((t) => [t.itemId, t]));
  const messages = new Map<string, { hit: SearchHit; keyword?: number; vector?: number }>();
  const memories = new Map<string, { hit: SearchHit; keyword?: number; vector?: number }>();
  const add = (h: SearchHit, side: 'keyword' | 'vector') => {
    const into = h.kind === 'message' ? messages : memories;
    const seen = into.get(h.item_id) ?? { hit: h };
    seen[side] = h.score;
    into.set(h.item_id, seen);
  };
  keyword.forEach((h) => add(h, 'keyword'));
  vector.forEach((h) => add(h, 'vector'));

  const participants = new Set<string>();
  const out: MessageCandidate[] = [];
  for (const [itemId, m] of messages) {
    const t = turns.get(itemId);
    // a row whose message is gone (a deletion racing this search) has no context and is dropped
    if (!t) continue;
    participants.add(t.senderName);
    out.push({
      key: messageKey(t.conversationId, t.messageId),
      hit: m.hit,
      keyword: m.keyword,
      vector: m.vector,
      awaitsVector: m.vector === undefined && waiting.has(itemId),
      sender: t.senderName,
      prev: t.prevMessageId === null ? undefined : messageKey(t.conversationId, t.prevMessageId),
      next: t.nextMessageId === null ? undefined : messageKey(t.conversationId, t.nextMessageId),
    });
  }
  for (const n of context.neighbours) {
    participants.add(n.senderName);
    out.push({ key: messageKey(n.hit.conversation_id, n.hit.message_ids[0] ?? ''), hit: n.hit, sender: n.senderName });
  }
  const sources = (h: SearchHit) => h.message_ids.map((id) => messageKey(h.conversation_id, id));
  return {
    messages: out,
    memories: [...memories.values()].map((m) => ({ ...m, sources: sources(m.hit) })),
    participants,
  };
}
