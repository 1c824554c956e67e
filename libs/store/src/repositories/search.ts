import type { Queryable, Store } from '../store.js';
import { sqlString, vectorLiteral, type SearchKind } from './search-items.js';
import { visibleTo } from './conversation-access.js';

export interface SearchFilters {
  readonly conversationId?: string | undefined;
  /** Any of these conversations (memory-service search's `conversationIds`). */
  readonly conversationIds?: readonly string[] | undefined;
  /** A person's id: only conversations they may read (see visibleTo). Unset: every conversation. */
  readonly visibleTo?: string | undefined;
  readonly userId?: string | undefined;
  readonly kinds: readonly SearchKind[];
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
}

/** One search hit with the method's own score in [0, 1]. */
export interface SearchHit {
  readonly kind: SearchKind;
  readonly item_id: string;
  readonly conversation_id: string;
  readonly user_id: string | null;
  readonly content: string;
  readonly occurred_at: Date;
  readonly message_ids: string[];
  readonly score: number;
}

const HIT_COLUMNS = 'kind, item_id, conversation_id, user_id, content, occurred_at, message_ids';

/** The SQL condition of a search's filters over search_items, its values appended to params. */
export function whereOf(f: SearchFilters, params: unknown[]): string {
  const where: string[] = [];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    where.push(sql(params.length));
  };
  add((n) => `kind = ANY($${n}::text[])`, [...f.kinds]);
  if (f.conversationId !== undefined) add((n) => `conversation_id = $${n}`, f.conversationId);
  if (f.conversationIds !== undefined) add((n) => `conversation_id = ANY($${n}::text[])`, [...f.conversationIds]);
  if (f.userId !== undefined) add((n) => `user_id = $${n}`, f.userId);
  if (f.from !== undefined) add((n) => `occurred_at >= $${n}`, f.from.toISOString());
  if (f.to !== undefined) add((n) => `occurred_at <= $${n}`, f.to.toISOString());
  if (f.visibleTo !== undefined) where.push(visibleTo('conversation_id', params, f.visibleTo));
  return where.join(' AND ');
}

// BM25 parameters (the usual ones).
const K1 = 1.2;
const B = 0.75;

/** Terms of a query that count: a question is a sentence, and past this its words add noise, not recall. */
export const MAX_QUERY_TERMS = 32;

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
 * One pass over the scope gives its size, its mean length and, for each item that matches, each
 * term's frequency (see tfOf), so the document frequencies come from the same pass and nothing
 * is unpacked: on a scope of 100,000 items of which 61,000 match, 170 ms instead of the 600 ms of
 * the lexeme-by-lexeme version (bench:search).
 */
export async function keywordSearch(q: Queryable, query: string, filters: SearchFilters, limit: number): Promise<SearchHit[]> {
  const { rows: parsed } = await q.query<{ lexemes: string[] | null }>(
    `SELECT array_agg(lexeme ORDER BY first) AS lexemes
       FROM (SELECT lexeme, min(p) AS first FROM unnest(to_tsvector('english', $1)) u, unnest(u.positions) p GROUP BY lexeme) t`,
    [query],
  );
  const lexemes = (parsed[0]?.lexemes ?? []).slice(0, MAX_QUERY_TERMS);
  if (lexemes.length === 0) return [];
  const params: unknown[] = [lexemes];
  const where = whereOf(filters, params);
  params.push(limit);
  const terms = lexemes.map((_, i) => i + 1);
  const list = (f: (i: number) => string, sep = ', ') => terms.map(f).join(sep);
  const { rows } = await q.query<SearchHit>(
    `WITH scan AS MATERIALIZED (
       SELECT kind, item_id, occurred_at, length(tsv)::float8 AS dl,
              CASE WHEN tsv @@ (SELECT to_tsquery('simple', string_agg(quote_literal(l), ' | ')) FROM unnest($1::text[]) l)
                   THEN ARRAY[${list((i) => tfOf(`ts_rank(tsv, to_tsquery('simple', quote_literal(($1::text[])[${i}])), 0)`))}]::float8[] END AS tf
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
       SELECT s.kind, s.item_id, s.occurred_at, (${list((i) => `w${i} * tf[${i}] * ${K1 + 1} / (tf[${i}] + ${K1} * (1 - ${B} + ${B} * dl / avgdl))`, ' + ')}) AS bm25,
              (${list((i) => `w${i}`, ' + ')}) * ${K1 + 1} AS most
         FROM scan s, idf WHERE s.tf IS NOT NULL
        ORDER BY bm25 DESC, s.occurred_at DESC, s.item_id
        LIMIT $${params.length}
     )
     SELECT ${HIT_COLUMNS.split(', ').map((c) => `si.${c}`).join(', ')}, LEAST(1, b.bm25 / NULLIF(b.most, 0)) AS score
       FROM best b JOIN search_items si ON si.kind = b.kind AND si.item_id = b.item_id
      ORDER BY b.bm25 DESC, b.occurred_at DESC, b.item_id`,
    params,
  );
  return rows.map((r) => ({ ...r, score: Number(r.score ?? 0) }));
}

/**
 * Past this many messages in a set of conversations, an exact scan of their vectors costs more
 * than walking the model's HNSW index and dropping what lies outside them: at 100,000 an exact
 * scan took 120 ms and a walk 27 ms (bench:search).
 */
export const EXACT_SCAN_MAX_ITEMS = 20_000;

/**
 * Vector search by cosine similarity over one model's vectors; the score is the similarity,
 * floored at 0. Within one conversation or user the search is exact: a few thousand distances
 * cost less than a graph walk, and an approximate index filtered afterwards would lose hits. A
 * person's conversations (or a list of them) are searched exactly too, unless they hold more than
 * EXACT_SCAN_MAX_ITEMS messages: then the model's HNSW index is walked far enough that the scope's
 * share of it should yield `limit` hits, and only if it does not is the scope scanned exactly.
 * Across everything it walks the index, with a candidate list sized to the request.
 */
export async function vectorSearch(
  store: Store,
  vector: ArrayLike<number>,
  model: string,
  filters: SearchFilters,
  limit: number,
): Promise<SearchHit[]> {
  const params: unknown[] = [vectorLiteral(vector)];
  const where = `${whereOf(filters, params)} AND embedding_model = ${sqlString(model)}`;
  params.push(limit);
  const exact = `embedding <=> $1::vector`;
  const walked = `embedding::vector(${vector.length}) <=> $1::vector(${vector.length})`;
  const select = (distance: string) => `SELECT ${HIT_COLUMNS}, GREATEST(0, 1 - (${distance})) AS score FROM search_items WHERE ${where}`;
  const walk = (efSearch: number) =>
    store.transaction(async (tx) => {
      await tx.query(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(40, Math.ceil(efSearch)))}`);
      // the walk was chosen for its cost; a planner that misjudges the scope would scan instead
      await tx.query('SET LOCAL enable_seqscan = off');
      // The index yields rows by distance alone: a second sort key in the same ORDER BY makes the
      // planner scan and sort instead, so ties are broken outside.
      const sql = `SELECT * FROM (${select(walked)} ORDER BY ${walked} LIMIT $${params.length}) w ORDER BY score DESC, item_id`;
      return (await tx.query<SearchHit>(sql, params)).rows;
    });
  const scanExactly = async () => (await store.query<SearchHit>(`${select(exact)} ORDER BY ${exact}, item_id LIMIT $${params.length}`, params)).rows;
  const scores = (rows: SearchHit[]) => rows.map((r) => ({ ...r, score: Number(r.score) }));

  if (filters.conversationId !== undefined || filters.userId !== undefined) return scores(await scanExactly());
  if (filters.visibleTo === undefined && filters.conversationIds === undefined) return scores(await walk(limit * 2));
  const { inScope, total } = await scopeSize(store, filters);
  if (inScope <= EXACT_SCAN_MAX_ITEMS) return scores(await scanExactly());
  // Walk far enough that the scope's share of the candidates is the limit, with a margin.
  const walkedRows = await walk((limit * 1.5 * Math.max(total, inScope)) / inScope);
  return scores(walkedRows.length >= limit ? walkedRows : await scanExactly());
}

/** How many messages a person's (or a list of) conversations hold, and how many items there are in all; both from counters, not scans. */
async function scopeSize(q: Queryable, filters: SearchFilters): Promise<{ inScope: number; total: number }> {
  const params: unknown[] = [];
  const where: string[] = [];
  if (filters.conversationIds !== undefined) where.push(`id = ANY($${params.push([...filters.conversationIds])}::text[])`);
  if (filters.visibleTo !== undefined) where.push(visibleTo('id', params, filters.visibleTo));
  const { rows } = await q.query<{ in_scope: string | null; total: number }>(
    `SELECT (SELECT sum(next_seq) FROM conversations WHERE ${where.join(' AND ')}) AS in_scope,
            (SELECT reltuples FROM pg_class WHERE oid = 'search_items'::regclass) AS total`,
    params,
  );
  return { inScope: Number(rows[0]?.in_scope ?? 0), total: Number(rows[0]?.total ?? 0) };
}
