import type { SearchHit } from '@memstream/store';

/**
 * One addend of a fused score: `weight × value`. The names are the ranking's own: `keyword` and
 * `vector` (hybrid: each method's score rescaled over its candidates; keyword or vector alone:
 * the method's score), `context`, `memory`, `participant`, `date`, `when` (hybrid's further
 * terms, see rankByFeatures), and `keyword_rank`, `vector_rank` (rrf: 1 / (RRF_K + rank)).
 */
export interface ScoreTerm {
  readonly name: string;
  readonly weight: number;
  readonly value: number;
}

/** Where a hit stood in one method's own list, and the score that method gave it there. */
export interface ListStanding {
  /** 1 is the first. */
  readonly rank: number;
  readonly score: number;
}

/**
 * Why a hit scored what it scored: `score = Σ weight × value over terms, divided by divisor`.
 * `keyword` and `vector` are the hit's place in each method's own list (BM25 ratio and cosine
 * similarity), null when that method did not return it or was not run.
 */
export interface ScoreParts {
  readonly keyword: ListStanding | null;
  readonly vector: ListStanding | null;
  readonly terms: readonly ScoreTerm[];
  readonly divisor: number;
}

/** A hit and, when asked for, its parts. */
export type ExplainedHit = SearchHit & { readonly parts?: ScoreParts };

const keyOf = (h: SearchHit) => `${h.kind}:${h.item_id}`;

/** Each hit's place in a method's list, by kind and id. */
export function standings(list: readonly SearchHit[]): Map<string, ListStanding> {
  return new Map(list.map((h, i) => [keyOf(h), { rank: i + 1, score: h.score }]));
}

/** Adds the hit's places in both lists to parts the fusion worked out. */
export function withStandings(
  hits: readonly ExplainedHit[],
  keyword: Map<string, ListStanding>,
  vector: Map<string, ListStanding>,
): ExplainedHit[] {
  return hits.map((h) =>
    h.parts
      ? {
          ...h,
          parts: { ...h.parts, keyword: keyword.get(keyOf(h)) ?? null, vector: vector.get(keyOf(h)) ?? null },
        }
      : h,
  );
}

/** A one-method search: its score is the method's own, a single term. */
export function singleMethodParts(hits: readonly SearchHit[], method: 'keyword' | 'vector'): ExplainedHit[] {
  return hits.map((h, i) => {
    const standing = { rank: i + 1, score: h.score };
    return {
      ...h,
      parts: {
        keyword: method === 'keyword' ? standing : null,
        vector: method === 'vector' ? standing : null,
        terms: [{ name: method, weight: 1, value: h.score }],
        divisor: 1,
      },
    };
  });
}

/** What the parts add up to; equal to the hit's score up to floating-point rounding. */
export const partsTotal = (parts: ScoreParts) =>
  parts.terms.reduce((sum, t) => sum + t.weight * t.value, 0) / parts.divisor;
