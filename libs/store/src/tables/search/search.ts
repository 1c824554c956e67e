import type { Queryable, Store } from '../../store.js';
import { sqlString, vectorLiteral } from './search-items.js';
import type { SearchKind } from './search-rows.js';
import { audienceIn, conversationsVisibleTo, visibleTo } from '../memberships/conversation-access.js';
import { messageGroups } from '../conversations/message-sql.js';
import { messagesEverIn } from '../conversations/conversation-sql.js';

export interface SearchFilters {
  readonly conversationId?: string | undefined;
  /** The group of what is searched, when the caller knows it: the search then stays on one shard. */
  readonly groupKey?: string | undefined;
  /** Any of these conversations (memory-service search's `conversationIds`). */
  readonly conversationIds?: readonly string[] | undefined;
  /** A person's id: only conversations they may read (see visibleTo). Unset: every conversation. */
  readonly visibleTo?: string | undefined;
  /** Agent-only content the reader may see (see audienceIn). Unset: all of it. */
  readonly audiences?: readonly string[] | undefined;
  /** A participant's (or sender's) items; null: those about no one (a group's narrative). */
  readonly userId?: string | null | undefined;
  readonly kinds: readonly SearchKind[];
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
}

/** The most conversations a person's scope may hold to be listed once for a search (withScopeListed). */
export const LISTED_SCOPE_MAX = 2_000;

/**
 * The filters with a person's scope (`visibleTo`) read once and named as `conversationIds` (with
 * the ones asked for, if any), for a search that runs several statements over it: each then
 * filters by a list instead of planning and running the scope's subquery again. A scope of more
 * than LISTED_SCOPE_MAX conversations stays a subquery (a list that long costs more to send).
 */
export async function withScopeListed(q: Queryable, filters: SearchFilters): Promise<SearchFilters> {
  if (filters.visibleTo === undefined) return filters;
  const visible = await conversationsVisibleTo(q, filters.visibleTo, LISTED_SCOPE_MAX);
  if (visible === undefined) return filters;
  const asked = filters.conversationIds;
  const visibleIds = new Set(visible);
  const kept = asked === undefined ? visible : asked.filter((id) => visibleIds.has(id));
  return { ...filters, visibleTo: undefined, conversationIds: kept };
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

/**
 * The SQL condition of a search's filters, its values appended to params, over `table`:
 * search_items (the default) or search_vectors (which carries the same filter columns), or the
 * kept keyword counts (conversation, kind and audience only; migration 0032). The counts keep the
 * audiences apart so that a scope's statistics, like its hits, hold only what the reader may
 * read: counted with agent-only rows, a person's scores moved with the words of an agent's memory.
 */
export function whereOf(
  f: SearchFilters,
  params: unknown[],
  table: 'search_items' | 'totals' = 'search_items',
): string {
  const where: string[] = [];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    where.push(sql(params.length));
  };
  add((n) => `kind = ANY($${n}::text[])`, [...f.kinds]);
  if (f.conversationId !== undefined) add((n) => `conversation_id = $${n}`, f.conversationId);
  if (f.groupKey !== undefined) add((n) => `group_key = $${n}`, f.groupKey);
  if (f.conversationIds !== undefined)
    add((n) => `conversation_id IN (SELECT unnest($${n}::text[]))`, [...f.conversationIds]);
  if (f.userId === null) where.push('user_id IS NULL');
  else if (f.userId !== undefined) add((n) => `user_id = $${n}`, f.userId);
  if (f.from !== undefined) add((n) => `occurred_at >= $${n}`, f.from.toISOString());
  if (f.to !== undefined) add((n) => `occurred_at <= $${n}`, f.to.toISOString());
  if (f.visibleTo !== undefined) where.push(visibleTo('conversation_id', params, f.visibleTo));
  if (f.audiences !== undefined)
    where.push(
      table === 'search_items' ? audienceIn('audience', params, f.audiences) : countedAudienceIn(params, f.audiences),
    );
  return where.join(' AND ');
}

/**
 * audienceIn over the kept counts, whose audience is '' for everyone and a long one's digest
 * (search_keyword_audience, migration 0032).
 */
function countedAudienceIn(params: unknown[], audiences: readonly string[]): string {
  if (audiences.length === 0) return `audience = ''`;
  const n = params.push([...audiences]);
  return `audience = ANY (ARRAY(SELECT search_keyword_audience(a) FROM unnest($${n}::text[]) a) || ''::text)`;
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
 * person's conversations (or a list of them), and every conversation, are searched exactly too
 * while they hold at most EXACT_SCAN_MAX_ITEMS messages. Past that the model's HNSW index is
 * walked: for a scope, far enough that its share of the index should yield `limit` hits (if it
 * does not, the scope is scanned exactly); across everything, with a candidate list sized to the
 * request. A walk is approximate, and what it misses depends on how its graph was built: beside
 * 3,000 turns that differ by one word, it lost the nearest of the other turns in a quarter to two
 * thirds of the builds (by insertion order), so two servers holding the same rows, a source and
 * its import, ranked them differently. Under the limit the answer depends on the rows alone.
 */
export async function vectorSearch(
  store: Store,
  vector: ArrayLike<number>,
  model: string,
  filters: SearchFilters,
  limit: number,
): Promise<SearchHit[]> {
  // For a walk, a person's scope is tested as a hashed set per row the index yields: planned as a
  // join instead, the set is searched linearly for each row (5 ms of an 8 ms walk at 1,000
  // conversations, bench:search).
  const statement = (walking: boolean) => {
    const params: unknown[] = [vectorLiteral(vector)];
    const hashed = walking && filters.visibleTo !== undefined;
    const conditions = [
      whereOf(hashed ? { ...filters, visibleTo: undefined } : filters, params),
      `embedding_model = ${sqlString(model)}`,
    ];
    if (hashed) conditions.push(`(${visibleTo('conversation_id', params, filters.visibleTo!)}) IS TRUE`);
    params.push(limit);
    return { where: conditions.join(' AND '), params };
  };
  const exact = `embedding <=> $1::vector`;
  const walked = `embedding::vector(${vector.length}) <=> $1::vector(${vector.length})`;
  // The vectors' own table holds every column a filter reads (migration 0025): the walk or scan
  // runs there alone, and only the hits it keeps are joined to their text.
  const select = (distance: string, where: string, order: string) =>
    `SELECT ${HIT_COLUMNS.split(', ')
      .map((c) => `s.${c}`)
      .join(', ')}, GREATEST(0, 1 - v.distance) AS score
     FROM (SELECT group_key, kind, item_id, ${distance} AS distance FROM search_vectors WHERE ${where} ${order}) v
     JOIN search_items s ON s.group_key = v.group_key AND s.kind = v.kind AND s.item_id = v.item_id`;
  const walk = (efSearch: number) =>
    store.transaction(async (tx) => {
      const { where, params } = statement(true);
      // the walk was chosen for its cost; a planner that misjudges the scope would scan instead
      // (SET LOCAL, not set_config: Citus passes a transaction's settings on to its workers; an integer, inlined)
      await tx.exec(
        `SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(40, Math.ceil(efSearch)))}; SET LOCAL enable_seqscan = off`,
      );
      // The index yields rows by distance alone: a second sort key in the same ORDER BY makes the
      // planner scan and sort instead, so ties are broken outside.
      const sql = `${select(walked, where, `ORDER BY ${walked} LIMIT $${params.length}`)} ORDER BY score DESC, s.item_id`;
      return (await tx.query<SearchHit>(sql, params)).rows;
    });
  const scanExactly = async () => {
    const { where, params } = statement(false);
    return (
      await store.query<SearchHit>(
        `${select(exact, where, `ORDER BY ${exact}, item_id LIMIT $${params.length}`)} ORDER BY v.distance, s.item_id`,
        params,
      )
    ).rows;
  };
  const scores = (rows: SearchHit[]) => rows.map((r) => ({ ...r, score: Number(r.score) }));

  if (filters.conversationId !== undefined || filters.userId !== undefined) return scores(await scanExactly());
  const { inScope, total } = await scopeSize(store, filters);
  if (inScope <= EXACT_SCAN_MAX_ITEMS) return scores(await scanExactly());
  if (filters.visibleTo === undefined && filters.conversationIds === undefined) return scores(await walk(limit * 2));
  // Walk far enough that the scope's share of the candidates is the limit, with a margin.
  const walkedRows = await walk((limit * 1.5 * Math.max(total, inScope)) / inScope);
  return scores(walkedRows.length >= limit ? walkedRows : await scanExactly());
}

/**
 * Of the messages `itemIds`, those with no vector of `model` yet: stored (their keyword row is
 * written with them) but not embedded by the indexer, or embedded by an older model only. Hybrid
 * reads this before its vector search: vectors only arrive, so a message this call calls waiting
 * either still waits when the vector search runs or is found by it with its own score. Read after
 * the vector search, a vector written between the two reads was in neither, and its message
 * counted as a poor vector match (docs/search.md).
 */
export async function messagesWithoutVectors(
  q: Queryable,
  model: string,
  itemIds: readonly string[],
): Promise<Set<string>> {
  if (itemIds.length === 0) return new Set();
  const { rows } = await q.query<{ item_id: string }>(
    // the vectors are found by their whole key, the group read from each message's row; both steps
    // materialized, so each stays a probe per item (joined, the planner hashed all the messages)
    `WITH m AS MATERIALIZED (${messageGroups('$3::int8[]')}),
     embedded AS MATERIALIZED (
       SELECT v.item_id FROM m JOIN search_vectors v ON v.group_key = m.group_key AND v.kind = 'message' AND v.item_id = m.item_id
        WHERE v.embedding_model = $2
     )
     SELECT i.item_id FROM unnest($1::text[]) AS i(item_id) WHERE i.item_id NOT IN (SELECT item_id FROM embedded)`,
    [[...itemIds], model, itemIds.filter((id) => /^[0-9]{1,18}$/.test(id))],
  );
  return new Set(rows.map((r) => r.item_id));
}

/**
 * How many messages a person's (or a list of, or every) conversations hold, and how many items
 * there are in all; both from counters, not scans of the items. Every conversation's counters are
 * summed only while the planner's estimate of the items is near EXACT_SCAN_MAX_ITEMS: past twice
 * that, the walk is chosen anyway, and the sum read every conversation's row (13 ms of a 140 ms
 * search at 100,200 conversations). The estimate then stands for the scope.
 */
async function scopeSize(q: Queryable, filters: SearchFilters): Promise<{ inScope: number; total: number }> {
  const params: unknown[] = [];
  const where: string[] = [];
  if (filters.conversationIds !== undefined)
    where.push(`id = ANY($${params.push([...filters.conversationIds])}::text[])`);
  if (filters.visibleTo !== undefined) where.push(visibleTo('id', params, filters.visibleTo));
  const total = `(SELECT reltuples FROM pg_class WHERE oid = 'search_vectors'::regclass)`;
  const inScope =
    where.length > 0
      ? messagesEverIn(where.join(' AND '))
      : `CASE WHEN ${total} > ${2 * EXACT_SCAN_MAX_ITEMS} THEN NULL ELSE ${messagesEverIn('true')} END`;
  const { rows } = await q.query<{ in_scope: string | null; total: number }>(
    `SELECT ${inScope} AS in_scope, ${total} AS total`,
    params,
  );
  const items = Number(rows[0]?.total ?? 0);
  const counted = rows[0]?.in_scope;
  return { inScope: counted === null && where.length === 0 ? items : Number(counted ?? 0), total: items };
}
