import type { SearchHit } from '@memstream/store';
import { sortHits } from './fuse.js';
import type { ExplainedHit, ScoreTerm } from './score-parts.js';
import { mentionsTime, overlaps, timeExpressions, type DayRange } from './time-expressions.js';

/**
 * A message that may be returned: its scores from each method (absent: that method did not
 * return it), who said it, and its neighbours in the conversation (keys of the turns before and
 * after it that still exist). Keys are `conversation \0 message id`, the ids memories cite.
 */
export interface MessageCandidate {
  readonly key: string;
  readonly hit: SearchHit;
  readonly keyword?: number | undefined;
  readonly vector?: number | undefined;
  /** Stored, and found by its words, but not embedded yet: its vector side is taken to match as well as its keyword side. */
  readonly awaitsVector?: boolean | undefined;
  readonly sender: string;
  readonly prev?: string | undefined;
  readonly next?: string | undefined;
}

/** An episodic memory the query matched, and the keys of the messages it was made from. */
export interface MemoryCandidate {
  readonly hit: SearchHit;
  readonly keyword?: number | undefined;
  readonly vector?: number | undefined;
  readonly sources: readonly string[];
}

/**
 * The weights of the contextual ranking. `vectorWeight` splits the base score between the two
 * methods (each min-max rescaled over its own candidates); the others are added to it:
 * - context: the best base score of the turn before or after (a reply means what it answers);
 * - memory: the best base score of a matching memory made from the turn;
 * - participant: the turn was said by a participant the question names;
 * - date: the turn was said on, or speaks of, a day the question names;
 * - when: the question asks when, and the turn holds a time expression.
 * The sum is divided by the most it could be, so scores stay in [0, 1].
 */
export interface RankingParams {
  readonly vectorWeight: number;
  readonly context: number;
  readonly memory: number;
  readonly participant: number;
  readonly date: number;
  readonly when: number;
}

export const messageKey = (conversationId: string, messageId: string) => `${conversationId}\u0000${messageId}`;

/** What the question says besides its words: the participants it names, the days it names, whether it asks when. */
export interface QueryIntent {
  readonly named: ReadonlySet<string>;
  readonly ranges: readonly DayRange[];
  readonly asksWhen: boolean;
}

const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

export function intentOf(query: string, participants: Iterable<string>, now: number): QueryIntent {
  const queryWords = words(query);
  const all = [...new Set(participants)];
  // A name counts by any of its words ("Caroline" for "Caroline Smith"); naming everyone says nothing.
  const named = new Set(all.filter((p) => [...words(p)].some((w) => w.length > 1 && queryWords.has(w))));
  return {
    named: named.size < all.length ? named : new Set(),
    ranges: timeExpressions(query, now),
    asksWhen: /\b(when|what (date|day|time|year|month|week)|how long ago|which (year|month|day))\b/i.test(query),
  };
}

/** Scores mapped onto [0, 1] by their own range; equal scores are all 1. */
function rescale<T>(items: readonly T[], score: (t: T) => number | undefined): Map<T, number> {
  const present = items.filter((t) => score(t) !== undefined);
  const scores = present.map((t) => score(t)!);
  const max = Math.max(...scores);
  const min = Math.min(...scores);
  return new Map(present.map((t, i) => [t, max > min ? (scores[i]! - min) / (max - min) : 1]));
}

/** Each method's rescaled score of one item (0 where the method did not return it; a message awaiting its vector has its keyword score on both sides). */
type Pair = readonly [keyword: number, vector: number];

/**
 * Everything the weights act on, worked out once per query: the ranking itself (rankByFeatures)
 * is then a few sums per candidate, which lets the benchmark try many weights on one set of lists.
 */
export interface RankFeatures {
  readonly hits: readonly SearchHit[];
  readonly self: readonly Pair[];
  /** Index of the turn before and after, among `hits` (-1: none, or not a candidate). */
  readonly around: ReadonlyArray<readonly [number, number]>;
  /** The pairs of the memories made from each turn. */
  readonly lent: ReadonlyArray<readonly Pair[]>;
  readonly participant: readonly number[];
  readonly date: readonly number[];
  readonly when: readonly number[];
  /** The memories themselves (ranked beside the turns when memories were asked for). */
  readonly memories: ReadonlyArray<{ readonly hit: SearchHit; readonly pair: Pair; readonly date: number }>;
}

function pairs<
  T extends { keyword?: number | undefined; vector?: number | undefined; awaitsVector?: boolean | undefined },
>(items: readonly T[]): Map<T, Pair> {
  const k = rescale(items, (t) => t.keyword);
  const v = rescale(items, (t) => t.vector);
  return new Map(
    items.map((t) => {
      const keyword = k.get(t) ?? 0;
      return [t, [keyword, v.get(t) ?? (t.awaitsVector ? keyword : 0)] as const];
    }),
  );
}

export function rankFeatures(
  intent: QueryIntent,
  messages: readonly MessageCandidate[],
  memories: readonly MemoryCandidate[],
): RankFeatures {
  const own = pairs(messages);
  const memoryPairs = pairs(memories);
  const at = new Map(messages.map((m, i) => [m.key, i]));
  const lent = new Map<string, Pair[]>();
  for (const [memory, pair] of memoryPairs)
    for (const key of memory.sources) lent.set(key, [...(lent.get(key) ?? []), pair]);
  const onDay = (hit: SearchHit) => {
    if (intent.ranges.length === 0) return 0;
    const t = hit.occurred_at.getTime();
    const spoken: DayRange[] = [{ from: t, to: t + 1 }, ...timeExpressions(hit.content, t)];
    return intent.ranges.some((q) => spoken.some((r) => overlaps(q, r))) ? 1 : 0;
  };
  return {
    hits: messages.map((m) => m.hit),
    self: messages.map((m) => own.get(m)!),
    around: messages.map((m) => [m.prev ? (at.get(m.prev) ?? -1) : -1, m.next ? (at.get(m.next) ?? -1) : -1] as const),
    lent: messages.map((m) => lent.get(m.key) ?? []),
    participant: messages.map((m) => (intent.named.has(m.sender) ? 1 : 0)),
    date: messages.map((m) => onDay(m.hit)),
    when: messages.map((m) => (intent.asksWhen && mentionsTime(m.hit.content) ? 1 : 0)),
    memories: memories.map((m) => ({ hit: m.hit, pair: memoryPairs.get(m)!, date: onDay(m.hit) })),
  };
}

/**
 * Ranks the turns (and the memories, when `withMemories`) by the weighted sum; best first. With
 * `explain`, each hit carries the sum's terms and divisor (the weight fitting leaves it off: it
 * ranks the same lists thousands of times and reads only the order).
 */
export function rankByFeatures(
  f: RankFeatures,
  params: RankingParams,
  withMemories: boolean,
  explain = false,
): ExplainedHit[] {
  const w = params.vectorWeight;
  const base = (p: Pair) => (1 - w) * p[0] + w * p[1];
  const own = f.self.map(base);
  const most = 1 + params.context + params.memory + params.participant + params.date + params.when;
  const baseTerms = (p: Pair): ScoreTerm[] => [
    { name: 'keyword', weight: 1 - w, value: p[0] },
    { name: 'vector', weight: w, value: p[1] },
  ];
  const explained = (hit: SearchHit, score: number, terms: () => ScoreTerm[]): ExplainedHit =>
    explain
      ? { ...hit, score, parts: { keyword: null, vector: null, terms: terms(), divisor: most } }
      : { ...hit, score };
  const scored: ExplainedHit[] = f.hits.map((hit, i) => {
    const [prev, next] = f.around[i]!;
    const context = Math.max(prev >= 0 ? own[prev]! : 0, next >= 0 ? own[next]! : 0);
    const lent = f.lent[i]!.reduce((best, p) => Math.max(best, base(p)), 0);
    const s =
      own[i]! +
      params.context * context +
      params.memory * lent +
      params.participant * f.participant[i]! +
      params.date * f.date[i]! +
      params.when * f.when[i]!;
    return explained(hit, s / most, () => [
      ...baseTerms(f.self[i]!),
      { name: 'context', weight: params.context, value: context },
      { name: 'memory', weight: params.memory, value: lent },
      { name: 'participant', weight: params.participant, value: f.participant[i]! },
      { name: 'date', weight: params.date, value: f.date[i]! },
      { name: 'when', weight: params.when, value: f.when[i]! },
    ]);
  });
  if (withMemories)
    for (const m of f.memories)
      scored.push(
        explained(m.hit, (base(m.pair) + params.date * m.date) / most, () => [
          ...baseTerms(m.pair),
          { name: 'date', weight: params.date, value: m.date },
        ]),
      );
  return sortHits(scored);
}
