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

function whereOf(f: SearchFilters, params: unknown[]): string {
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

/**
 * Keyword search ranked by BM25 over Postgres text search: the query's words (stemmed, stop words
 * dropped) are OR-ed, so a question matches the turns that share any of its words; each term
 * counts by its inverse document frequency within the filtered scope and saturates with its
 * frequency in the item, normalised by length. Postgres's own ts_rank has no IDF, and without it
 * a speaker's name (in half the items) outweighs the one rare word that matters.
 *
 * The score is BM25 divided by the most any item could score for this query (every term, with
 * unbounded frequency), so it lies in [0, 1] and means "share of the query's weight matched".
 */
export async function keywordSearch(q: Queryable, query: string, filters: SearchFilters, limit: number): Promise<SearchHit[]> {
  const params: unknown[] = [query];
  const where = whereOf(filters, params);
  params.push(limit);
  const { rows } = await q.query<SearchHit>(
    `WITH terms AS (
       SELECT DISTINCT lexeme, to_tsquery('simple', quote_literal(lexeme)) AS tq FROM unnest(to_tsvector('english', $1))
     ),
     scope AS MATERIALIZED (
       SELECT ${HIT_COLUMNS}, tsv FROM search_items WHERE ${where}
     ),
     stats AS MATERIALIZED (
       SELECT count(*)::float8 AS n, GREATEST(avg(length(tsv)), 1)::float8 AS avgdl FROM scope
     ),
     idf AS MATERIALIZED (   -- once per term, not per candidate
       SELECT t.lexeme, ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) AS idf
       FROM terms t CROSS JOIN stats st
       CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM scope s WHERE s.tsv @@ t.tq) d
     ),
     scored AS (
       SELECT s.*, (
         SELECT sum(i.idf * (tf * ${K1 + 1}) / (tf + ${K1} * (1 - ${B} + ${B} * length(s.tsv) / st.avgdl)))
         FROM (SELECT lexeme, COALESCE(array_length(positions, 1), 1)::float8 AS tf FROM unnest(s.tsv)) u
         JOIN idf i ON i.lexeme = u.lexeme
       ) AS bm25
       FROM scope s CROSS JOIN stats st
       WHERE s.tsv @@ (SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | ')) FROM terms)
     )
     SELECT ${HIT_COLUMNS}, LEAST(1, bm25 / NULLIF((SELECT sum(idf) * ${K1 + 1} FROM idf), 0)) AS score
     FROM scored
     ORDER BY bm25 DESC, occurred_at DESC, item_id
     LIMIT $${params.length}`,
    params,
  );
  return rows.map((r) => ({ ...r, score: Number(r.score ?? 0) }));
}

/**
 * Vector search by cosine similarity over one model's vectors; the score is the similarity,
 * floored at 0. Within one conversation (or user, or a person's conversations) the search is exact: a few thousand distances
 * cost less than a graph walk, and an approximate index filtered afterwards would lose hits.
 * Across everything it walks the model's HNSW index, with a candidate list sized to the request.
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
  // A person's conversations are a scope too: an index walk filtered afterwards would lose their hits.
  const scoped = filters.conversationId !== undefined || filters.conversationIds !== undefined || filters.userId !== undefined || filters.visibleTo !== undefined;
  const distance = scoped ? 'embedding <=> $1::vector' : `embedding::vector(${vector.length}) <=> $1::vector(${vector.length})`;
  const sql = `SELECT ${HIT_COLUMNS}, GREATEST(0, 1 - (${distance})) AS score FROM search_items
     WHERE ${where} ORDER BY ${distance}, item_id LIMIT $${params.length}`;
  if (scoped) {
    const { rows } = await store.query<SearchHit>(sql, params);
    return rows.map((r) => ({ ...r, score: Number(r.score) }));
  }
  return store.transaction(async (tx) => {
    await tx.query(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(40, limit * 2))}`);
    const { rows } = await tx.query<SearchHit>(sql, params);
    return rows.map((r) => ({ ...r, score: Number(r.score) }));
  });
}
