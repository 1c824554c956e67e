import type { Queryable } from '../../store.js';
import { whereOf, type SearchFilters, type SearchHit } from './search.js';
import {
  boundedTerms,
  candidatesFor,
  firstThreshold,
  MAX_SCORED_ITEMS,
  scoringFloor,
  type Candidates,
} from './keyword-bounds.js';

// BM25 parameters (the usual ones).
const K1 = 1.2;
const B = 0.75;

/** Terms of a query that count: a question is a sentence, and past this its words add noise, not recall. */
export const MAX_QUERY_TERMS = 32;

const HIT_COLUMNS = ['kind', 'item_id', 'conversation_id', 'user_id', 'content', 'occurred_at', 'message_ids'];

/**
 * A term's frequency in an item, from `ts_rank` of the term alone. Unpacking an item's lexemes to
 * count positions costs 7 µs a row; ts_rank finds the term as fast as `@@` does. For one term
 * whose positions all carry weight D (0.1; we never set weights), ts_rank without normalisation
 * is r = 0.1 · Σ_{j≤tf} 1/j² / (π²/6). So Σ_{j≤tf} 1/j² = r · 10 · π²/6, and the tail
 * π²/6 − Σ_{j≤tf} 1/j² lies between 1/(tf + 1) and 1/tf: 1/tail − 1/2 rounds to tf. Exact up to
 * the 256 positions a tsvector keeps per lexeme; 0 when the term is absent.
 */
const tfOf = (rank: string) =>
  `CASE WHEN ${rank} > 0 THEN LEAST(256, round(1 / GREATEST(1.6449340668 - ${rank} * 16.449340668, 0.0039) - 0.5)) ELSE 0 END`;

/** The i-th query term (1-based) as the tsquery that tfOf ranks by. */
const termQuery = (i: number) => `to_tsquery('simple', quote_literal(($1::text[])[${i}]))`;

/** SQL of BM25 over the terms numbered `terms`, from each term's frequency `tf(i)`, dl and w<i>, avgdl. */
const bm25Of = (terms: readonly number[], tf: (i: number) => string) =>
  terms.map((i) => `w${i} * ${tf(i)} * ${K1 + 1} / (${tf(i)} + ${K1} * (1 - ${B} + ${B} * dl / avgdl))`).join(' + ');

/** Of the rows `best` ranked, the hits with their columns from search_items and score in [0, 1]. */
const HITS_OF_BEST = `SELECT ${HIT_COLUMNS.map((c) => `si.${c}`).join(', ')}, LEAST(1, b.bm25 / NULLIF(b.most, 0)) AS score, b.bm25
       FROM best b JOIN search_items si ON si.group_key = b.group_key AND si.kind = b.kind AND si.item_id = b.item_id
      ORDER BY b.bm25 DESC, b.occurred_at DESC, b.item_id`;

type ScoredHit = SearchHit & { bm25: number };

/**
 * Keyword search ranked by BM25 over Postgres text search: the query's words (stemmed, stop words
 * dropped) are OR-ed, so a question matches the turns that share any of its words; each term
 * counts by its inverse document frequency within the filtered scope and saturates with its
 * frequency in the item, normalised by length. Postgres's own ts_rank has no IDF, and without it
 * a speaker's name (in half the items) outweighs the one rare word that matters.
 *
 * The score is BM25 divided by the most any item could score for this query (every term, with
 * unbounded frequency), so it lies in [0, 1] and means "share of the query's weight matched".
 *
 * The scope's statistics (size, mean length, document frequencies) cover only the audiences the
 * caller may read (migration 0032): what a caller may not see moves none of its scores (see
 * parseQuery for where they come from). Only items that can
 * still make the first `limit` are scored (keyword-bounds.ts), and at most about
 * MAX_SCORED_ITEMS of them: past that, in a large scope whose query words are all common, the
 * answer is the best of the items holding its rarest combinations of words. A scope those counts cannot
 * describe (a time range, a user) and the rare query term that the simple parser splits (a
 * hyphenated word, a URL) take one pass over the scope instead, which gives the same scores.
 */
export async function keywordSearch(
  q: Queryable,
  query: string,
  filters: SearchFilters,
  limit: number,
  options: { readonly maxScored?: number } = {},
): Promise<SearchHit[]> {
  const countable = filters.userId === undefined && filters.from === undefined && filters.to === undefined;
  const { lexemes, plain, stats } = await parseQuery(q, query, filters, countable);
  if (lexemes.length === 0) return [];
  const hits =
    stats && plain
      ? await searchWithStatistics(q, lexemes, stats, filters, limit, options.maxScored ?? MAX_SCORED_ITEMS)
      : await searchInOnePass(q, lexemes, filters, limit);
  return hits.map(({ bm25: _, ...h }) => ({ ...h, score: Number(h.score ?? 0) }));
}

interface ScopeStatistics {
  readonly items: number;
  readonly lexemes: number;
  /** Per query term, in the query's order. */
  readonly df: number[];
}

/** The statement of parseQuery: the query's terms and, with `withStatistics`, its scope's statistics. */
export function queryStatisticsStatement(
  query: string,
  filters: SearchFilters,
  withStatistics: boolean,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [query];
  const where = withStatistics ? whereOf(filters, params, 'totals') : 'false';
  const everything =
    filters.conversationId === undefined &&
    filters.groupKey === undefined &&
    filters.conversationIds === undefined &&
    filters.visibleTo === undefined;
  const scope = everything
    ? `SELECT items, lexemes FROM search_keyword_overall_totals WHERE ${where}`
    : `SELECT group_key, conversation_id, kind, audience, items, lexemes FROM search_keyword_totals WHERE ${where}`;
  // a scope of conversations: each term's items counted among the scope's rows that hold any
  // term, found by the GIN index or the scope's own (the planner's choice, which it can make
  // only for a query it can read as it plans: every word of the query OR-ed, none left out as
  // terms past MAX_QUERY_TERMS are, which the join to the terms drops); rows still waiting for
  // the fold are search rows already, so these counts need nothing from them
  const items = withStatistics && !everything ? whereOf(filters, params) : 'false';
  const matched = everything
    ? ''
    : `matched AS MATERIALIZED (
         SELECT tsv FROM search_items
          WHERE ${items} AND tsv @@ replace(plainto_tsquery('english', $1)::text, ' & ', ' | ')::tsquery
       ),`;
  const counted = everything
    ? `SELECT f.lexeme, f.items AS n FROM search_keyword_overall_frequencies f
        WHERE f.lexeme = ANY (ARRAY(SELECT lexeme FROM terms)) AND ${where}
       UNION ALL
       SELECT l.lexeme, 1 FROM pending p, unnest(tsvector_to_array(p.tsv)) AS l(lexeme) WHERE l.lexeme = ANY (ARRAY(SELECT lexeme FROM terms))`
    : 'SELECT t.lexeme, 1 AS n FROM terms t, matched m WHERE m.tsv @@ t.query';
  const sql = `WITH terms AS MATERIALIZED (
       SELECT lexeme, first, query, query = quote_literal(lexeme)::tsquery AS plain
         FROM (SELECT lexeme, first, to_tsquery('simple', quote_literal(lexeme)) AS query
                 FROM (SELECT lexeme, min(p) AS first FROM unnest(to_tsvector('english', $1)) u, unnest(u.positions) p GROUP BY lexeme) t
                ORDER BY first LIMIT ${MAX_QUERY_TERMS}) q
     ),
     scope AS MATERIALIZED (${scope}),
     ${matched}
     pending AS MATERIALIZED (SELECT tsv FROM search_keyword_pending WHERE ${where})
     SELECT (SELECT array_agg(lexeme ORDER BY first) FROM terms) AS lexemes, (SELECT bool_and(plain) FROM terms) AS plain,
            (SELECT COALESCE(sum(items), 0) FROM scope) + (SELECT count(*) FROM pending) AS items,
            (SELECT COALESCE(sum(lexemes), 0) FROM scope) + (SELECT COALESCE(sum(length(tsv)), 0) FROM pending) AS total_length,
            (SELECT json_object_agg(lexeme, n) FROM (SELECT lexeme, sum(n) AS n FROM (
                ${counted}
              ) c GROUP BY lexeme) d) AS df`;
  return { sql, params };
}

/**
 * The query's terms (stemmed, stop words dropped, in order of first use), whether the simple
 * parser reads each back as the one lexeme (tfOf ranks by it), and, when asked, the scope's
 * statistics: one statement, as a search waits for each. A scope's size and length are the kept
 * totals of its conversations; its document frequencies are counted from its search rows that hold
 * a term, so they are exact whatever has been folded. Until migration 0048 they were kept per
 * conversation and lexeme too, which cost every stored message a dozen rows (four fifths of the
 * fold's work, 3.5 KB) so that a search could read them in a probe per conversation and term.
 * Messages whose totals are not folded in yet (migration 0021) are counted from their pending
 * rows, so the statistics are exact whenever the search runs.
 *
 * A scope of every conversation (a caller who may read them all, with no conversation named) reads
 * the sums the writers keep over every conversation (migration 0045): a row per kind and audience,
 * and per lexeme, kind and audience, whatever the store's size. Summing the conversations' counts
 * instead took 835 ms of a 981 ms hybrid search at 1,000,000 messages (docs/search.md).
 */
async function parseQuery(
  q: Queryable,
  query: string,
  filters: SearchFilters,
  withStatistics: boolean,
): Promise<{ lexemes: string[]; plain: boolean; stats: ScopeStatistics | undefined }> {
  const { sql, params } = queryStatisticsStatement(query, filters, withStatistics);
  const { rows } = await q.query<{
    lexemes: string[] | null;
    plain: boolean | null;
    items: string | null;
    total_length: string | null;
    df: Record<string, string | number> | null;
  }>(sql, params);
  const r = rows[0];
  const lexemes = r?.lexemes ?? [];
  const stats = withStatistics
    ? {
        items: Number(r?.items ?? 0),
        lexemes: Number(r?.total_length ?? 0),
        df: lexemes.map((l) => Number(r?.df?.[l] ?? 0)),
      }
    : undefined;
  return { lexemes, plain: r?.plain === true, stats };
}

async function searchWithStatistics(
  q: Queryable,
  lexemes: readonly string[],
  stats: ScopeStatistics,
  filters: SearchFilters,
  limit: number,
  maxScored: number,
): Promise<ScoredHit[]> {
  if (stats.items === 0) return [];
  const terms = boundedTerms(lexemes, stats.df, stats.items, K1);
  if (terms.length === 0) return [];
  // no round scores the items below the floor: past MAX_SCORED_ITEMS, the answer is the best of those above it
  const floor = scoringFloor(terms, stats.items, maxScored);
  let candidates = candidatesFor(terms, Math.max(firstThreshold(terms, stats.items, limit), floor));
  for (;;) {
    const hits = await scoreCandidates(q, lexemes, stats, candidates, filters, limit);
    // an item outside the candidates scores below the threshold: once the limit-th hit reaches it, none can displace or tie a hit
    const last = hits.length >= limit ? hits[limit - 1]!.bm25 : undefined;
    if (candidates.threshold <= 0 || (last !== undefined && last >= candidates.threshold)) return hits;
    const next = candidatesFor(terms, Math.max(last ?? 0, floor));
    // the same candidates again: every item outside them scores below `last`, or lies under the floor
    if (next.family === candidates.family) return hits;
    candidates = next;
  }
}

/** BM25 of the items in the candidate set, with the scope's statistics given. */
async function scoreCandidates(
  q: Queryable,
  lexemes: readonly string[],
  stats: ScopeStatistics,
  candidates: Candidates,
  filters: SearchFilters,
  limit: number,
): Promise<ScoredHit[]> {
  if (candidates.tsquery === '') return [];
  const params: unknown[] = [lexemes, stats.items, stats.lexemes, stats.df, candidates.tsquery];
  const where = whereOf(filters, params);
  params.push(limit);
  const all = lexemes.map((_, i) => i + 1);
  // a term no item of the scope holds adds 0 to every score: only `most` counts it
  const held = all.filter((i) => (stats.df[i - 1] ?? 0) > 0);
  const list = (ts: readonly number[], f: (i: number) => string, sep = ', ') => ts.map(f).join(sep);
  // ranks are taken once per term (OFFSET 0 keeps the planner from copying them into each use)
  const { rows } = await q.query<ScoredHit>(
    `WITH idf AS MATERIALIZED (
       SELECT ${list(all, (i) => `ln(1 + ($2::float8 - ($4::float8[])[${i}] + 0.5) / (($4::float8[])[${i}] + 0.5)) AS w${i}`)},
              GREATEST($3::float8 / $2::float8, 1)::float8 AS avgdl
     ),
     best AS (
       SELECT s.group_key, s.kind, s.item_id, s.occurred_at, (${bm25Of(held, (i) => `tf${i}`)}) AS bm25, (${list(all, (i) => `w${i}`, ' + ')}) * ${K1 + 1} AS most
         FROM (SELECT group_key, kind, item_id, occurred_at, dl, ${list(held, (i) => `${tfOf(`r${i}`)} AS tf${i}`)}
                 FROM (SELECT group_key, kind, item_id, occurred_at, length(tsv)::float8 AS dl, ${list(held, (i) => `ts_rank(tsv, ${termQuery(i)}, 0) AS r${i}`)}
                         FROM search_items WHERE ${where} AND tsv @@ $5::tsquery OFFSET 0) ranked) s, idf
        ORDER BY bm25 DESC, s.occurred_at DESC, s.item_id
        LIMIT $${params.length}
     )
     ${HITS_OF_BEST}`,
    params,
  );
  return rows.map((r) => ({ ...r, bm25: Number(r.bm25) }));
}

/**
 * One pass over the scope gives its size, its mean length and, for each item that matches, each
 * term's frequency (see tfOf), so the document frequencies come from the same pass and nothing
 * is unpacked.
 */
async function searchInOnePass(
  q: Queryable,
  lexemes: readonly string[],
  filters: SearchFilters,
  limit: number,
): Promise<ScoredHit[]> {
  const params: unknown[] = [lexemes];
  const where = whereOf(filters, params);
  params.push(limit);
  const all = lexemes.map((_, i) => i + 1);
  const list = (f: (i: number) => string, sep = ', ') => all.map(f).join(sep);
  const { rows } = await q.query<ScoredHit>(
    `WITH scan AS MATERIALIZED (
       SELECT group_key, kind, item_id, occurred_at, length(tsv)::float8 AS dl,
              CASE WHEN tsv @@ (SELECT to_tsquery('simple', string_agg(quote_literal(l), ' | ')) FROM unnest($1::text[]) l)
                   THEN ARRAY[${list((i) => tfOf(`ts_rank(tsv, ${termQuery(i)}, 0)`))}]::float8[] END AS tf
         FROM search_items WHERE ${where}
     ),
     st AS MATERIALIZED (
       SELECT count(*)::float8 AS n, GREATEST(avg(dl), 1)::float8 AS avgdl,
              ${list((i) => `count(*) FILTER (WHERE tf[${i}] > 0)::float8 AS df${i}`)}
         FROM scan
     ),
     idf AS MATERIALIZED (
       SELECT ${list((i) => `ln(1 + (n - df${i} + 0.5) / (df${i} + 0.5)) AS w${i}`)}, avgdl FROM st
     ),
     best AS (
       SELECT s.group_key, s.kind, s.item_id, s.occurred_at, (${bm25Of(all, (i) => `tf[${i}]`)}) AS bm25, (${list((i) => `w${i}`, ' + ')}) * ${K1 + 1} AS most
         FROM scan s, idf WHERE s.tf IS NOT NULL
        ORDER BY bm25 DESC, s.occurred_at DESC, s.item_id
        LIMIT $${params.length}
     )
     ${HITS_OF_BEST}`,
    params,
  );
  return rows.map((r) => ({ ...r, bm25: Number(r.bm25) }));
}
