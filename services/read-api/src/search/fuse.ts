import type { SearchHit } from '@memstream/store';

/** The rank-fusion constant of the RRF paper: dampens the gap between the first ranks. */
export const RRF_K = 60;

const keyOf = (h: SearchHit) => `${h.kind}:${h.item_id}`;

/**
 * Hybrid: a weighted sum of each method's own score (vector similarity, normalised BM25); a hit
 * one method did not return counts 0 for it. Both scores are in [0, 1], so the sum is too.
 */
export function weightedFusion(keyword: readonly SearchHit[], vector: readonly SearchHit[], vectorWeight: number): SearchHit[] {
  const fused = new Map<string, { hit: SearchHit; k: number; v: number }>();
  for (const h of keyword) fused.set(keyOf(h), { hit: h, k: h.score, v: 0 });
  for (const h of vector) {
    const seen = fused.get(keyOf(h));
    if (seen) seen.v = h.score;
    else fused.set(keyOf(h), { hit: h, k: 0, v: h.score });
  }
  return sortHits([...fused.values()].map(({ hit, k, v }) => ({ ...hit, score: vectorWeight * v + (1 - vectorWeight) * k })));
}

/**
 * Reciprocal rank fusion: each list adds 1 / (K + rank). Divided by what a hit ranked first in
 * every list gets, so the best possible is 1 and scores stay in [0, 1] like the other methods'.
 */
export function rrfFusion(lists: ReadonlyArray<readonly SearchHit[]>): SearchHit[] {
  const fused = new Map<string, { hit: SearchHit; sum: number }>();
  for (const list of lists) {
    list.forEach((h, i) => {
      const seen = fused.get(keyOf(h));
      const add = 1 / (RRF_K + i + 1);
      if (seen) seen.sum += add;
      else fused.set(keyOf(h), { hit: h, sum: add });
    });
  }
  const best = lists.length / (RRF_K + 1);
  return sortHits([...fused.values()].map(({ hit, sum }) => ({ ...hit, score: sum / best })));
}

/** Best first; ties newest first, then by id, so equal scores come back in a stable order. */
export function sortHits(hits: SearchHit[]): SearchHit[] {
  return hits.sort((a, b) => b.score - a.score || b.occurred_at.getTime() - a.occurred_at.getTime() || (a.item_id < b.item_id ? -1 : 1));
}
