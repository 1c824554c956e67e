/**
 * Which items keyword search must score to find its best `limit` exactly, without scoring every
 * item that shares a word with the query.
 *
 * An item's BM25 is a sum over the query terms it holds, and a term's share is below w · (k1 + 1)
 * however often it occurs (w its IDF). So an item holding the set S of terms scores below
 * bound(S) = Σ_{t ∈ S} w_t · (k1 + 1). Score every item whose set has bound(S) ≥ τ; if the
 * `limit`-th best of them scores at least τ, no other item (bound below τ, so score below τ) can
 * enter or tie, and the answer is exact. With two common words, that is the items holding both,
 * a sixth of those holding either on the benchmark's data.
 *
 * τ starts where the scope's statistics say enough items should qualify (assuming the terms
 * occur independently: only speed depends on the guess). If the guess is too high, a second
 * round uses the `limit`-th score found, which is then exact; if too few items qualified, every
 * item holding a term is scored, as without bounds.
 */

/** Past this many terms that occur in the scope, subsets are not enumerated: every match is scored. */
export const MAX_BOUNDED_TERMS = 12;

/** Past this many alternatives, the candidates are asked for as the items holding any essential term instead. */
const MAX_CLAUSES = 32;

/** How many items the first round aims to score, per item asked for. */
const CANDIDATES_PER_RESULT = 4;

/** A term of the query that occurs in the scope: its lexeme, IDF bound and share of the scope's items. */
export interface BoundedTerm {
  readonly lexeme: string;
  readonly bound: number;
  readonly share: number;
}

/** A candidate set: items whose terms' bounds sum to at least `threshold`, as a tsquery. */
export interface Candidates {
  readonly threshold: number;
  readonly tsquery: string;
  /** The subsets of term indices whose bound reaches the threshold: equal sets mean equal candidates. */
  readonly family: string;
}

/** BM25's IDF, as the SQL computes it (ln(1 + (n - df + 0.5) / (df + 0.5))). */
export const idf = (items: number, df: number) => Math.log(1 + (items - df + 0.5) / (df + 0.5));

/** Floating-point sums in a different order than SQL's may differ in the last digits; bounds err upwards. */
const SLACK = 1 + 1e-9;

/** Bounded terms from the scope's statistics (terms that occur nowhere in it are left out: no item holds them). */
export function boundedTerms(
  lexemes: readonly string[],
  df: readonly number[],
  items: number,
  k1: number,
): BoundedTerm[] {
  return lexemes.flatMap((lexeme, i) => {
    const d = df[i] ?? 0;
    return d > 0 ? [{ lexeme, bound: idf(items, d) * (k1 + 1) * SLACK, share: Math.min(1, d / items) }] : [];
  });
}

/**
 * The most items one keyword search scores, as the scope's statistics estimate them (terms
 * assumed independent). Scoring an item reads its row, so a search whose exact answer needs more
 * grows with the store: over every conversation of 3 million messages, three common words made
 * a search over everything take seconds (bench:scale), and at 6 million one ran past the
 * statement timeout. Past the budget, the items scored are those holding the query's rarest
 * combinations of terms, and the best of them is the answer: an item left out holds fewer or
 * commoner of the query's terms, and could outscore them only by repeating those in a short
 * text. A scope of one conversation, or a person's, never comes near the budget.
 */
export const MAX_SCORED_ITEMS = 20_000;

/** Each subset of the terms (a bit mask), with its bound sum and the items expected to hold exactly it, highest bound first. */
function subsetsByBound(terms: readonly BoundedTerm[], items: number): Array<{ bound: number; expected: number }> {
  const subsets: Array<{ bound: number; expected: number }> = [];
  for (let mask = 1; mask < 1 << terms.length; mask++) {
    let bound = 0;
    let p = 1;
    terms.forEach((t, i) => {
      if (mask & (1 << i)) {
        bound += t.bound;
        p *= t.share;
      } else {
        p *= 1 - t.share;
      }
    });
    subsets.push({ bound, expected: p * items });
  }
  return subsets.sort((a, b) => b.bound - a.bound);
}

/**
 * The first round's threshold: the highest bound sum such that the items expected to reach it
 * (terms assumed independent) number at least CANDIDATES_PER_RESULT × limit; 0 (every match)
 * when the terms are too many to enumerate or too rare to fill the limit anyway.
 */
export function firstThreshold(terms: readonly BoundedTerm[], items: number, limit: number): number {
  if (terms.length > MAX_BOUNDED_TERMS || terms.length === 0) return 0;
  let expected = 0;
  for (const s of subsetsByBound(terms, items)) {
    expected += s.expected;
    if (expected >= CANDIDATES_PER_RESULT * limit) return s.bound;
  }
  return 0;
}

/**
 * The lowest threshold whose candidates are expected to number at most `budget`: no round scores
 * items below it. 0 (no floor) when every item holding a term fits, or when the terms are too
 * many to enumerate; the highest bound sum (the items holding every term) when even those do not.
 */
export function scoringFloor(terms: readonly BoundedTerm[], items: number, budget = MAX_SCORED_ITEMS): number {
  if (terms.length > MAX_BOUNDED_TERMS || terms.length === 0) return 0;
  const subsets = subsetsByBound(terms, items);
  if (subsets.reduce((sum, s) => sum + s.expected, 0) <= budget) return 0;
  let expected = 0;
  let floor = subsets[0]!.bound;
  for (const s of subsets) {
    expected += s.expected;
    if (expected > budget) return floor;
    floor = s.bound;
  }
  return floor;
}

/** The items that may reach `threshold`: as alternatives of the smallest term sets that do, or, when those are many, the items holding an essential term. */
export function candidatesFor(terms: readonly BoundedTerm[], threshold: number): Candidates {
  const quoted = terms.map((t) => `'${t.lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`);
  const any = { threshold, tsquery: quoted.join(' | '), family: 'any' };
  if (threshold <= 0 || terms.length > MAX_BOUNDED_TERMS) return any;
  const minimal: number[] = [];
  for (let mask = 1; mask < 1 << terms.length; mask++) {
    let bound = 0;
    let smallest = Infinity;
    terms.forEach((t, i) => {
      if (mask & (1 << i)) {
        bound += t.bound;
        smallest = Math.min(smallest, t.bound);
      }
    });
    // in the family, and no smaller set of it is: dropping its weakest term falls below
    if (bound >= threshold && bound - smallest < threshold) minimal.push(mask);
  }
  if (minimal.length === 0) return { threshold, tsquery: '', family: 'none' };
  const family = minimal.join(',');
  if (minimal.length <= MAX_CLAUSES) {
    const clause = (mask: number) => `(${quoted.filter((_, i) => mask & (1 << i)).join(' & ')})`;
    return { threshold, tsquery: minimal.map(clause).join(' | '), family };
  }
  // MaxScore's essential terms: the weakest terms whose bounds together stay below the threshold
  // cannot reach it alone, so every candidate holds one of the others.
  const order = terms.map((t, i) => ({ t, i })).sort((a, b) => a.t.bound - b.t.bound);
  let sum = 0;
  const essential = order.filter(({ t }) => (sum += t.bound) >= threshold).map(({ i }) => quoted[i]!);
  return { threshold, tsquery: essential.join(' | '), family };
}
