/**
 * The contextual-text lever, measured without changing the index: every turn is embedded twice in
 * the bench process with the served local model, alone ("Name: text", as the indexer embeds it)
 * and after the turn before it in its session, and each question's message vectors are ranked
 * exactly by cosine within its conversation. Both lists go through the same contextual ranking
 * and cross-validation as the served ones, so the alone list is the control that separates the
 * lever's gain from the difference between this exact ranking and the API's.
 */
import type { GroupChatDocument } from '@memstream/cli';
import type { ApiHit } from './locomo-turns.js';

export interface TurnText {
  /** `<group>:<message id>`, the id the benchmark stores the turn under. */
  readonly id: string;
  readonly group: string;
  /** What the indexer embeds: the speaker's name, then what was said. */
  readonly alone: string;
  /** The turn before it in the same session, then the turn (the turn alone when it opens its session). */
  readonly withPrevious: string;
  /** The day the turn was said, as a line to put in front ("8 May 2023"). */
  readonly day: string;
}

const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

export function turnTexts(
  documents: readonly GroupChatDocument[],
  groupOf: (doc: GroupChatDocument) => string,
): TurnText[] {
  return documents.flatMap((doc) => {
    const group = groupOf(doc);
    const list = doc.conversation_list;
    const session = (i: number) => list[i]!.message_id.split(':')[0];
    const said = (i: number) => `${list[i]!.sender_name}: ${list[i]!.content.trim()}`;
    return list.map((m, i) => ({
      id: `${group}:${m.message_id}`,
      group,
      alone: said(i),
      withPrevious: i > 0 && session(i - 1) === session(i) ? `${said(i - 1)}\n${said(i)}` : said(i),
      day: DAY.format(new Date(m.create_time)),
    }));
  });
}

/** The `k` items nearest `query` by cosine (all vectors unit length), best first; ties by position. */
export function nearest(
  query: Float32Array,
  vectors: readonly Float32Array[],
  k: number,
): Array<{ index: number; score: number }> {
  const scored = vectors.map((v, index) => {
    let dot = 0;
    for (let d = 0; d < v.length; d++) dot += v[d]! * query[d]!;
    return { index, score: dot };
  });
  return scored.sort((a, b) => b.score - a.score || a.index - b.index).slice(0, k);
}

/**
 * A vector list as the API would answer it if the index held `vectors`: the conversation's `k`
 * nearest turns as message hits, then the memories of the list the API returned (memories are
 * embedded alike either way).
 */
export function exactVectorList(
  group: string,
  query: Float32Array,
  turns: readonly TurnText[],
  vectors: readonly Float32Array[],
  served: readonly ApiHit[],
  k: number,
): ApiHit[] {
  const inGroup = turns.map((_, i) => i).filter((i) => turns[i]!.group === group);
  const messages = nearest(
    query,
    inGroup.map((i) => vectors[i]!),
    k,
  ).map(({ index, score }) => {
    const turn = turns[inGroup[index]!]!;
    // the fields the ranking reads; content and time come from the data set (locomo-turns.ts)
    const hit: ApiHit = {
      id: turn.id,
      memory_type: 'message',
      content: turn.alone,
      score,
      group_id: group,
      user_id: null,
      timestamp: '',
      message_ids: [turn.id],
    };
    return hit;
  });
  return [...messages, ...served.filter((h) => h.memory_type !== 'message')];
}
