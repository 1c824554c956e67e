import type { Queryable, Store } from '../../store.js';

export type SearchKind = 'message' | 'episodic_memory';

/**
 * search_items, the keyword side of the search index, and the BM25 statistics kept over it
 * (search_keyword_totals, _frequencies and _pending): every statement that writes a search row is
 * built here, and each counts the words it adds or removes in the same statement or transaction.
 * Until migration 0039 triggers on search_items did that; Citus allows no trigger on a distributed
 * table, so a writer that skipped this module would leave the counts wrong with nothing to notice.
 *
 * A message's words wait in search_keyword_pending (migration 0021): the append, on the held
 * write's path, only copies its row there, and foldKeywordCounts adds them to the counts later.
 * Searches add the pending rows to the counts themselves, so the statistics are exact at any
 * moment. A memory's words are counted at once. A row is keyed by its group first (group_key),
 * the shard key of every search table.
 */

/** The columns an insert's SELECT yields, in this order. */
export const SEARCH_ROW_COLUMNS =
  'group_key, kind, item_id, conversation_id, user_id, content, occurred_at, message_ids, tsv, audience';

/**
 * CTEs that insert the search rows `select` yields (SEARCH_ROW_COLUMNS, all of kind `kind`) and
 * count their words; a row already there is left as it is, and counted no second time. The CTE
 * `name` returns the rows written: group_key, kind, item_id, conversation_id, audience, tsv.
 */
export function insertSearchRowsSql(name: string, kind: SearchKind, select: string): string {
  const inserted = `${name} AS (
       INSERT INTO search_items (${SEARCH_ROW_COLUMNS})
       ${select}
       ON CONFLICT (group_key, kind, item_id) DO NOTHING
       RETURNING group_key, kind, item_id, conversation_id, search_keyword_audience(audience) AS audience, tsv
     )`;
  if (kind === 'message') {
    return `${inserted},
     ${name}_pending AS (
       INSERT INTO search_keyword_pending (group_key, kind, item_id, conversation_id, audience, tsv)
       SELECT group_key, kind, item_id, conversation_id, audience, tsv FROM ${name}
     )`;
  }
  return `${inserted},
     ${name}_delta AS (SELECT group_key, conversation_id, kind, audience, tsv, 1 AS sign FROM ${name}),
     ${keywordDeltaSql(`${name}_delta`)}`;
}

/** Adds the rows `select` yields (kind, audience, items, lexemes) to the totals over every conversation. */
const addToOverallTotals = (
  select: string,
) => `INSERT INTO search_keyword_overall_totals AS t (kind, audience, items, lexemes)
       ${select}
       ON CONFLICT (kind, audience) DO UPDATE SET items = t.items + EXCLUDED.items, lexemes = t.lexemes + EXCLUDED.lexemes`;

/** Subtracts the totals rows the CTE `gone` returns (kind, audience, items, lexemes) from the totals over every conversation. */
const totalsCountedOut = (gone: string) =>
  addToOverallTotals(`SELECT kind, audience, -sum(items), -sum(lexemes) FROM ${gone}
        GROUP BY kind, audience HAVING sum(items) <> 0 OR sum(lexemes) <> 0 ORDER BY kind, audience`);

/**
 * A condition, always true, that reads the CTE `cte` in full first: a CTE that names it in its
 * WHERE takes its locks only after `cte` has taken all of its own.
 */
const afterAllOf = (cte: string) => `(SELECT count(*) FROM ${cte}) >= 0`;

/** Adds the rows `select` yields (lexeme, kind, audience, items) to the frequencies over every conversation; returns each changed row. */
const addToOverallFrequencies = (
  select: string,
) => `INSERT INTO search_keyword_overall_frequencies AS f (lexeme, kind, audience, items)
       ${select}
       ON CONFLICT (lexeme, kind, audience) DO UPDATE SET items = f.items + EXCLUDED.items
       RETURNING f.lexeme, f.kind, f.audience, f.items`;

/** The overall frequencies the CTE `changed` (addToOverallFrequencies) left at zero, as JSON. */
const overallZeroedOf = (changed: string) =>
  `(SELECT json_agg(json_build_array(lexeme, kind, audience)) FROM ${changed} WHERE items = 0)`;

/**
 * CTEs adding signed rows of the CTE `delta` (group_key, conversation_id, kind, audience, tsv,
 * sign) to the counts: each conversation's totals, and the sums over every conversation (migration
 * 0045: totals, and items per lexeme, read by a search that names no conversation). A scope of
 * conversations counts its items per lexeme at search time (keyword-search.ts): until migration
 * 0048 each conversation's were kept too, a dozen rows a message that were four fifths of the
 * fold's work. In key order, so two writers lock the rows they share in the same order; and the
 * sums after the conversations' rows (their CTEs read the others' results first), so every writer
 * locks a conversation's rows before the shared ones and no two wait on each other in opposite
 * orders. A delta that changes nothing leaves the sums unlocked. `<delta>_overall_frequencies`
 * returns each frequency it changed, with its new count: one at zero is to be deleted by a later
 * statement (dropZeroedFrequencies), as one statement cannot change a row twice.
 */
export function keywordDeltaSql(delta: string): string {
  // read in full before the sums are touched (see above)
  const after = afterAllOf(`${delta}_totals`);
  return `${delta}_totals AS (
       INSERT INTO search_keyword_totals AS t (group_key, conversation_id, kind, audience, items, lexemes)
       SELECT group_key, conversation_id, kind, audience, sum(sign), sum(sign * length(tsv)) FROM ${delta}
        GROUP BY group_key, conversation_id, kind, audience ORDER BY group_key, conversation_id, kind, audience
       ON CONFLICT (group_key, conversation_id, kind, audience)
       DO UPDATE SET items = t.items + EXCLUDED.items, lexemes = t.lexemes + EXCLUDED.lexemes
       RETURNING 1
     ),
     ${delta}_overall_totals AS (
       ${addToOverallTotals(`SELECT kind, audience, sum(sign), sum(sign * length(tsv)) FROM ${delta} WHERE ${after}
        GROUP BY kind, audience HAVING sum(sign) <> 0 OR sum(sign * length(tsv)) <> 0 ORDER BY kind, audience`)}
     ),
     ${delta}_overall_frequencies AS (
       ${addToOverallFrequencies(`${lexemeCountsOf(delta, 'sum(d.sign)', after)} HAVING sum(d.sign) <> 0 ORDER BY 1, 2, 3`)}
     )`;
}

/**
 * The lexemes of the rows of `rows` (kind, audience, tsv, and whatever `count` reads as d), each
 * with its kind, audience and `count`: what the sums over every conversation count. A lexeme over
 * 1,000 bytes is left out, as its key would overflow the index (migration 0028).
 */
const lexemeCountsOf = (rows: string, count: string, also = 'true') =>
  `SELECT l.lexeme, d.kind, d.audience, ${count}
         FROM ${rows} d, unnest(tsvector_to_array(d.tsv)) AS l(lexeme)
        WHERE octet_length(l.lexeme) <= 1000 AND ${also}
        GROUP BY 1, 2, 3`;

/** The frequencies keywordDeltaSql brought to zero, as JSON for dropZeroedFrequencies. */
export const zeroedOf = (delta: string) =>
  `json_build_object('overall', ${overallZeroedOf(`${delta}_overall_frequencies`)})`;

export type ZeroedFrequencies = {
  readonly overall?: ReadonlyArray<readonly [string, string, string]> | null;
} | null;

/**
 * Deletes the frequencies a delta left at zero, so that a lexeme no row holds has no row. This
 * transaction holds them locked since it changed them; `items = 0` still guards a caller outside one.
 */
export async function dropZeroedFrequencies(q: Queryable, zeroed: ZeroedFrequencies): Promise<void> {
  const overall = zeroed?.overall ?? [];
  if (overall.length > 0) {
    const column = (i: number) => overall.map((z) => z[i]);
    await q.query(
      `DELETE FROM search_keyword_overall_frequencies f
        USING unnest($1::text[], $2::text[], $3::text[]) AS z(l, k, a)
        WHERE f.lexeme = z.l AND f.kind = z.k AND f.audience = z.a AND f.items = 0`,
      [column(0), column(1), column(2)],
    );
  }
}

/**
 * Purges the keyword totals of whole groups (their search rows already gone) and takes them out of
 * the sums over every conversation, in one statement: a row a writer changes meanwhile is deleted
 * as it was committed, and counted out as such. Returns how many rows it deleted.
 */
export async function purgeKeywordTotals(q: Queryable, groups: readonly string[]): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `WITH gone AS (
       DELETE FROM search_keyword_totals WHERE group_key = ANY($1::text[]) RETURNING kind, audience, items, lexemes
     ),
     counted_out AS (
       ${totalsCountedOut('gone')}
     )
     SELECT count(*)::int AS n FROM gone`,
    [[...groups]],
  );
  return rows[0]?.n ?? 0;
}

/**
 * Purges the search rows of whole groups (their vectors and queue places go by foreign key) with
 * their keyword totals, and counts both out of the sums over every conversation: the totals, and
 * the words of the rows already folded. Returns how many search rows it deleted. In the order the
 * fold locks them (keywordDeltaSql): the groups' waiting rows first, so that a fold holding some
 * is waited for and what it folded is counted out with the rest; then their totals, then the
 * shared sums. purgeKeywordTotals, a stage later, finds what a writer added meanwhile.
 */
export async function purgeSearchItems(q: Queryable, groups: readonly string[]): Promise<number> {
  const { rows } = await q.query<{ n: number; zeroed: ZeroedFrequencies }>(
    `WITH unpended AS (
       DELETE FROM search_keyword_pending WHERE group_key = ANY($1::text[]) RETURNING group_key, kind, item_id
     ),
     gone AS (
       DELETE FROM search_items WHERE group_key = ANY($1::text[]) AND ${afterAllOf('unpended')}
       RETURNING group_key, kind, item_id, search_keyword_audience(audience) AS audience, tsv
     ),
     totals_gone AS (
       DELETE FROM search_keyword_totals WHERE group_key = ANY($1::text[]) AND ${afterAllOf('gone')}
       RETURNING kind, audience, items, lexemes
     ),
     totals_out AS (
       ${totalsCountedOut('totals_gone')}
     ),
     counted AS (
       SELECT g.kind, g.audience, g.tsv FROM gone g
         LEFT JOIN unpended u ON u.group_key = g.group_key AND u.kind = g.kind AND u.item_id = g.item_id
        WHERE u.item_id IS NULL AND ${afterAllOf('totals_gone')}
     ),
     counted_out AS (
       ${addToOverallFrequencies(`${lexemeCountsOf('counted', '-count(*)')} ORDER BY 1, 2, 3`)}
     )
     SELECT (SELECT count(*) FROM gone)::int AS n, json_build_object('overall', ${overallZeroedOf('counted_out')}) AS zeroed`,
    [[...groups]],
  );
  await dropZeroedFrequencies(q, rows[0]?.zeroed ?? null);
  return rows[0]?.n ?? 0;
}

/** A search row by its key. */
export interface SearchRowKey {
  readonly groupKey: string;
  readonly itemId: string;
}

/**
 * Deletes search rows of one kind, their vectors and queue places (their foreign keys cascade),
 * and counts their words out: a row still pending leaves the pending table, one folded is
 * subtracted. Returns how many rows it deleted.
 */
export async function deleteSearchRows(q: Queryable, kind: SearchKind, keys: readonly SearchRowKey[]): Promise<number> {
  if (keys.length === 0) return 0;
  const { rows } = await q.query<{ deleted: number; zeroed: ZeroedFrequencies }>(
    `WITH gone AS (
       DELETE FROM search_items s USING unnest($1::text[], $2::text[]) AS d(g, id)
        WHERE s.group_key = d.g AND s.kind = $3 AND s.item_id = d.id
       RETURNING s.group_key, s.kind, s.item_id, s.conversation_id, search_keyword_audience(s.audience) AS audience, s.tsv
     ),
     unpended AS (
       DELETE FROM search_keyword_pending p USING gone g
        WHERE p.group_key = g.group_key AND p.kind = g.kind AND p.item_id = g.item_id
       RETURNING p.group_key, p.item_id
     ),
     counted AS (
       SELECT g.group_key, g.conversation_id, g.kind, g.audience, g.tsv, -1 AS sign
         FROM gone g LEFT JOIN unpended u ON u.group_key = g.group_key AND u.item_id = g.item_id
        WHERE u.item_id IS NULL
     ),
     ${keywordDeltaSql('counted')}
     SELECT (SELECT count(*) FROM gone)::int AS deleted, ${zeroedOf('counted')} AS zeroed`,
    [keys.map((k) => k.groupKey), keys.map((k) => k.itemId), kind],
  );
  await dropZeroedFrequencies(q, rows[0]?.zeroed ?? null);
  return rows[0]?.deleted ?? 0;
}

/**
 * CTEs that write the search rows of memories from the CTE `source` (id, group_key,
 * conversation_id, user_id, occurred_at, message_ids, body): inserted, or rewritten on a
 * redelivery (so that the row is returned, and locked) with its words counted again where they
 * changed. The CTE `items` returns the item ids written; zeroedOf('memory_delta') the
 * frequencies to drop after.
 */
export function upsertMemoryRowsSql(tsv: (text: string) => string): string {
  return `prior AS MATERIALIZED (
       SELECT s.group_key, s.item_id, s.conversation_id, search_keyword_audience(s.audience) AS audience, s.tsv
         FROM search_items s JOIN source ON s.group_key = source.group_key AND s.kind = 'episodic_memory' AND s.item_id = source.id
     ),
     items AS (
       INSERT INTO search_items (${SEARCH_ROW_COLUMNS})
       SELECT group_key, 'episodic_memory', id, conversation_id, user_id, body, occurred_at, message_ids, ${tsv('body')}, NULL
       FROM source
       ON CONFLICT (group_key, kind, item_id) DO UPDATE SET content = EXCLUDED.content, tsv = EXCLUDED.tsv
       RETURNING group_key, item_id, conversation_id, search_keyword_audience(audience) AS audience, tsv
     ),
     -- one join of the rows written with their priors, read twice: as two joins, each read its
     -- inner CTE again for every row of the outer (the planner expects one row of each)
     changed AS (
       SELECT i.group_key, i.conversation_id, i.audience, i.tsv, p.item_id IS NOT NULL AS had_prior,
              p.conversation_id AS prior_conversation_id, p.audience AS prior_audience, p.tsv AS prior_tsv
         FROM items i LEFT JOIN prior p ON p.group_key = i.group_key AND p.item_id = i.item_id
        WHERE p.tsv IS DISTINCT FROM i.tsv
     ),
     memory_delta AS (
       SELECT group_key, conversation_id, 'episodic_memory' AS kind, audience, tsv, 1 AS sign FROM changed
       UNION ALL
       SELECT group_key, prior_conversation_id, 'episodic_memory', prior_audience, prior_tsv, -1 FROM changed WHERE had_prior
     ),
     ${keywordDeltaSql('memory_delta')}`;
}

/** A search row as insertSearchRows takes it: its words are read from `content`. */
export interface SearchRowInput {
  readonly groupKey: string;
  readonly kind: SearchKind;
  readonly itemId: string;
  readonly conversationId: string;
  readonly userId: string | null;
  readonly content: string;
  readonly occurredAt: Date | string;
  readonly messageIds: readonly string[];
  readonly audience?: string | null | undefined;
}

/**
 * Inserts search rows given whole (an import's tools, test fixtures), counting their words as the
 * writers above do; a row already stored is left as it is. Returns how many it inserted.
 */
export async function insertSearchRows(q: Queryable, rows: readonly SearchRowInput[]): Promise<number> {
  let inserted = 0;
  for (const kind of ['message', 'episodic_memory'] as const) {
    const of = rows.filter((r) => r.kind === kind);
    if (of.length === 0) continue;
    const { rows: result } = await q.query<{ n: number }>(
      `WITH ${insertSearchRowsSql(
        'written',
        kind,
        `SELECT g, $8::text, id, c, u, body, at, ARRAY(SELECT jsonb_array_elements_text(mids)), to_tsvector('english', body), a
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::jsonb[], $9::text[])
             AS t(g, id, c, u, body, at, mids, a)`,
      )}
       SELECT count(*)::int AS n FROM written`,
      [
        of.map((r) => r.groupKey),
        of.map((r) => r.itemId),
        of.map((r) => r.conversationId),
        of.map((r) => r.userId),
        of.map((r) => r.content),
        of.map((r) => (typeof r.occurredAt === 'string' ? r.occurredAt : r.occurredAt.toISOString())),
        of.map((r) => JSON.stringify(r.messageIds)),
        kind,
        of.map((r) => r.audience ?? null),
      ],
    );
    inserted += result[0]?.n ?? 0;
  }
  return inserted;
}

/**
 * Counts the keyword statistics of every row of search_items again from nothing, all of them
 * folded: for rows loaded in bulk without the writers above (a benchmark's fill), as the truncate
 * trigger before migration 0039 reset them with the rows. Run it with nothing else writing.
 */
export async function recountKeywords(q: Pick<Queryable, 'query'>): Promise<void> {
  await q.query('DELETE FROM search_keyword_pending');
  await q.query('DELETE FROM search_keyword_totals');
  await q.query(
    `INSERT INTO search_keyword_totals (group_key, conversation_id, kind, audience, items, lexemes)
     SELECT group_key, conversation_id, kind, search_keyword_audience(audience), count(*), sum(length(tsv))
       FROM search_items GROUP BY 1, 2, 3, 4`,
  );
  await sumOverall(q);
}

/**
 * The sums over every conversation (migration 0045) made again: the totals from the
 * conversations', the lexemes from the search rows whose words are folded (none waits).
 */
async function sumOverall(q: Pick<Queryable, 'query'>): Promise<void> {
  await q.query('DELETE FROM search_keyword_overall_totals');
  await q.query('DELETE FROM search_keyword_overall_frequencies');
  await q.query(
    `INSERT INTO search_keyword_overall_totals (kind, audience, items, lexemes)
     SELECT kind, audience, sum(items), sum(lexemes) FROM search_keyword_totals GROUP BY 1, 2`,
  );
  await q.query(
    `WITH folded AS (
       SELECT s.kind, search_keyword_audience(s.audience) AS audience, s.tsv FROM search_items s
        WHERE NOT EXISTS (SELECT FROM search_keyword_pending p
                           WHERE p.group_key = s.group_key AND p.kind = s.kind AND p.item_id = s.item_id)
     )
     INSERT INTO search_keyword_overall_frequencies (lexeme, kind, audience, items)
     ${lexemeCountsOf('folded', 'count(*)')}`,
  );
}

/**
 * Kinds and audiences whose totals over every conversation are not the sum of the conversations'
 * (folded) totals. Every writer of this version changes both in one statement, so in any snapshot
 * they agree; a writer older than migration 0045 (left running through a rolling upgrade) changes
 * only the conversations' and leaves the sums short. One scan of the totals, a row per
 * conversation, kind and audience.
 */
const DRIFTED_TOTALS = `
  SELECT count(*)::int AS n
    FROM (SELECT kind, audience, sum(items) AS items, sum(lexemes) AS lexemes
            FROM search_keyword_totals GROUP BY 1, 2) c
    FULL JOIN search_keyword_overall_totals o USING (kind, audience)
   WHERE (COALESCE(c.items, 0), COALESCE(c.lexemes, 0)) IS DISTINCT FROM (COALESCE(o.items, 0), COALESCE(o.lexemes, 0))`;

/**
 * Mends the sums over every conversation when their totals have drifted from the conversations'
 * (DRIFTED_TOTALS): the governance worker's periodic check. True when it summed them again.
 *
 * The sums are summed under an EXCLUSIVE lock on their two tables: searches go on reading the old
 * sums, and every writer waits at its statement's start, before it changed anything, then adds
 * its delta to the new sums. A writer that already changed rows holds the tables until it
 * commits, and the lock waits for it, so its rows are in the recount. The check runs again under
 * the lock: another replica may have mended them meanwhile. The recount reads every search row's
 * words in one statement (6.6-7.9 s at a million messages here), and writers wait that long: a
 * fold gives up after its lock_timeout and leaves its rows for the next. That statement must end
 * within the process's statement timeout (DATABASE_STATEMENT_TIMEOUT_MS, which the client enforces
 * too); a store past about three million messages needs a longer one for the governance worker.
 *
 * A drift that moves lexemes but no totals (none of this version's writers makes one; an old
 * writer's rewrite of a memory to other words of the same count could) is not seen by the check.
 */
export async function mendOverallKeywordSums(store: Store): Promise<boolean> {
  const drifted = async (q: Pick<Queryable, 'query'>) => (await q.query<{ n: number }>(DRIFTED_TOTALS)).rows[0]!.n > 0;
  if (!(await drifted(store))) return false;
  return store.transaction(async (tx) => {
    await tx.query('LOCK TABLE search_keyword_overall_totals, search_keyword_overall_frequencies IN EXCLUSIVE MODE');
    if (!(await drifted(tx))) return false;
    await sumOverall(tx);
    return true;
  });
}

/**
 * Empties the conversations' counts per lexeme, which no writer of this version keeps (migration
 * 0048), of rows a writer of the version before wrote while it still ran through a rolling
 * upgrade: nothing would count an erased message's words out of them. Returns how many it deleted.
 */
export async function clearRetiredKeywordCounts(q: Pick<Queryable, 'query'>): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    'WITH gone AS (DELETE FROM search_keyword_frequencies RETURNING 1) SELECT count(*)::int AS n FROM gone',
  );
  return rows[0]?.n ?? 0;
}
