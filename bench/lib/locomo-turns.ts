/**
 * What the retrieval benchmark knows of a LoCoMo conversation besides the API: each turn's
 * speaker, text, time and neighbours (the turns before and after it in its session), so the
 * contextual ranking's features can be built from the lists the API returns, as the read API
 * builds them from its own rows (its neighbours are the nearest messages within 4 hours: in
 * LoCoMo, the turns of the same session).
 */
import type { GroupChatDocument } from '@memstream/cli';
import { messageKey, type MemoryCandidate, type MessageCandidate } from '@memstream/search';
import type { SearchHit } from '@memstream/store';
import type { SearchHit as ClientSearchHit } from '@memstream/client';

/** A hit as the EverMemOS search answers it (the client's type of it). */
export type ApiHit = ClientSearchHit;

interface Turn {
  readonly hit: SearchHit;
  readonly sender: string;
  readonly prev?: string | undefined;
  readonly next?: string | undefined;
}

export const hitOf = (h: ApiHit): SearchHit => ({
  kind: h.memory_type,
  item_id: h.id,
  conversation_id: h.group_id,
  user_id: h.user_id,
  content: h.content,
  occurred_at: new Date(h.timestamp),
  message_ids: h.message_ids,
  score: h.score,
});

/** Every turn of the documents by key (group id as the benchmark ingests it, message id). */
export function turnsOf(
  documents: readonly GroupChatDocument[],
  groupOf: (doc: GroupChatDocument) => string,
): Map<string, Turn> {
  const turns = new Map<string, Turn>();
  for (const doc of documents) {
    const group = groupOf(doc);
    const list = doc.conversation_list;
    const id = (i: number) => `${group}:${list[i]!.message_id}`;
    const session = (i: number) => list[i]!.message_id.split(':')[0];
    list.forEach((m, i) => {
      turns.set(messageKey(group, id(i)), {
        // the indexer's text: the speaker's name, then what was said
        hit: {
          kind: 'message',
          item_id: id(i),
          conversation_id: group,
          user_id: m.sender,
          content: `${m.sender_name}: ${m.content}`,
          occurred_at: new Date(m.create_time),
          message_ids: [id(i)],
          score: 0,
        },
        sender: m.sender_name,
        prev: i > 0 && session(i - 1) === session(i) ? messageKey(group, id(i - 1)) : undefined,
        next: i + 1 < list.length && session(i + 1) === session(i) ? messageKey(group, id(i + 1)) : undefined,
      });
    });
  }
  return turns;
}

/** The contextual ranking's candidates from the keyword and vector lists (messages and memories), as the read API makes them. */
export function candidatesOf(
  keyword: readonly ApiHit[],
  vector: readonly ApiHit[],
  turns: ReadonlyMap<string, Turn>,
  /** A lever the read API does not pull: the source turns of the memories among each list's first N join the candidates. */
  options: { memorySources?: number } = {},
): { messages: MessageCandidate[]; memories: MemoryCandidate[]; participants: Set<string> } {
  const messages = new Map<string, { keyword?: number; vector?: number }>();
  const memories = new Map<string, { hit: SearchHit; keyword?: number; vector?: number }>();
  const add = (h: ApiHit, side: 'keyword' | 'vector') => {
    if (h.memory_type === 'message') {
      const key = messageKey(h.group_id, h.id);
      messages.set(key, { ...messages.get(key), [side]: h.score });
    } else {
      const seen = memories.get(h.id) ?? { hit: hitOf(h) };
      seen[side] = h.score;
      memories.set(h.id, seen);
    }
  };
  keyword.forEach((h) => add(h, 'keyword'));
  vector.forEach((h) => add(h, 'vector'));
  const out: MessageCandidate[] = [];
  const participants = new Set<string>();
  for (const [key, scores] of messages) {
    const t = turns.get(key);
    if (!t) throw new Error(`a hit the data set does not hold: ${key}`);
    participants.add(t.sender);
    out.push({ key, hit: t.hit, ...scores, sender: t.sender, prev: t.prev, next: t.next });
  }
  for (const key of new Set([...messages.keys()].flatMap((k) => [turns.get(k)!.prev, turns.get(k)!.next]))) {
    if (key === undefined || messages.has(key)) continue;
    const t = turns.get(key)!;
    participants.add(t.sender);
    out.push({ key, hit: t.hit, sender: t.sender });
  }
  if (options.memorySources) {
    const have = new Set(out.map((m) => m.key));
    const top = [...keyword.slice(0, options.memorySources), ...vector.slice(0, options.memorySources)];
    for (const h of top.filter((x) => x.memory_type !== 'message'))
      for (const id of h.message_ids) {
        const key = messageKey(h.group_id, id);
        const t = turns.get(key);
        if (!t || have.has(key)) continue;
        have.add(key);
        participants.add(t.sender);
        out.push({ key, hit: t.hit, sender: t.sender, prev: t.prev, next: t.next });
      }
  }
  const sources = (h: SearchHit) => h.message_ids.map((id) => messageKey(h.conversation_id, id));
  return {
    messages: out,
    memories: [...memories.values()].map((m) => ({ ...m, sources: sources(m.hit) })),
    participants,
  };
}
