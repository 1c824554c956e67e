import { test } from 'node:test';
import assert from 'node:assert/strict';
import { insertSearchRows, type Store } from '@memstream/store';
import { keywordFoldSql, keywordTakeSql } from '../src/tables/search/keyword-counts.js';
import { queryStatisticsStatement } from '../src/tables/search/keyword-search.js';
import type { SearchFilters } from '../src/tables/search/search.js';
import { nodesOf, type Explained } from './explain.js';
import { migratedStore } from './search-fixtures.js';

/** The keyword queue's tables in pg_class (`c`): the table, or in STORE_LAYOUT=partitioned its partitions too. */
const QUEUE_TABLES = `(c.oid = 'search_keyword_pending'::regclass
  OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'search_keyword_pending'::regclass))`;

/**
 * The keyword queue as autovacuum often leaves it: measured nearly empty, on pages it still holds.
 * The planner then takes whatever waits in it for a row or two. No autovacuum measures it again
 * during the test (in STORE_LAYOUT=partitioned, each partition is such a table).
 */
async function queueMeasuredEmpty(store: Store): Promise<void> {
  const { rows } = await store.query<{ name: string }>(
    `SELECT c.oid::regclass::text AS name FROM pg_class c WHERE c.relkind = 'r' AND ${QUEUE_TABLES}`,
  );
  assert.ok(rows.length > 0, 'the queue has a table of rows');
  for (const r of rows) await store.exec(`ALTER TABLE ${r.name} SET (autovacuum_enabled = false)`);
  await queue(store, 'earlier', 1, 3_000);
  // each table keeps its last row, so that the vacuum cannot give back the pages the others held
  await store.exec(
    `DELETE FROM search_keyword_pending WHERE (tableoid, ctid) NOT IN
       (SELECT tableoid, max(ctid) FROM search_keyword_pending GROUP BY tableoid)`,
  );
  await store.exec('VACUUM ANALYZE search_keyword_pending');
}

/** `count` waiting rows spread over `groups` groups named `<prefix>-<n>`, as the append leaves them. */
async function queue(store: Store, prefix: string, groups: number, count: number): Promise<string[]> {
  const names = Array.from({ length: groups }, (_, g) => `${prefix}-${g}`);
  await store.query(
    `INSERT INTO search_keyword_pending (group_key, kind, item_id, conversation_id, audience, tsv)
     SELECT g, 'message', $2 || '-' || i, g, '', to_tsvector('english', 'turn ' || i || ' of the rollout plan')
       FROM generate_series(1, $3::int) AS i, LATERAL (SELECT ($1::text[])[1 + i % cardinality($1::text[])] AS g) AS k`,
    [names, prefix, count],
  );
  return names;
}

/** The fold of `groups` as foldGroupKeywordCounts runs it, with its delete explained; rolled back. */
async function explainFold(
  store: Store,
  groups: string | string[],
  limit: number,
): Promise<{ taken: number; plan: Explained }> {
  const sql = typeof groups === 'string' ? ('$1' as const) : ('ANY($1::text[])' as const);
  let result: { taken: number; plan: Explained } | undefined;
  await store
    .transaction(async (tx) => {
      const { rows } = await tx.query<{ item_id: string }>(keywordTakeSql(sql), [groups, limit]);
      const explained = await tx.query<{ 'QUERY PLAN': Explained[] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${keywordFoldSql(sql)}`,
        [groups, rows.map((r) => r.item_id)],
      );
      result = { taken: rows.length, plan: explained.rows[0]!['QUERY PLAN'][0]! };
      throw new Error('rolled back on purpose');
    })
    .catch((err: Error) => {
      if (err.message !== 'rolled back on purpose') throw err;
    });
  return result!;
}

/** Rows of `table` (or of its partitions) the plan read, over every loop of every node that read it. */
function rowsRead(plan: Explained, table: string): number {
  const named = new RegExp(`^${table}(_p\\d+)?$`);
  return [...nodesOf(plan.Plan)]
    .filter((n) => named.test(n['Relation Name'] ?? '') && n['Node Type'] !== 'ModifyTable')
    .reduce(
      (sum, n) => sum + ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * (n['Actual Loops'] ?? 1),
      0,
    );
}

// A burst leaves thousands of messages' words waiting, in a queue the planner believes empty. The
// fold takes a share of them: what it reads of the queue must be bounded by the queue, never by the
// queue times the share (one scan of it per row taken), and it takes no more than its share.
test('a fold of a backlog the planner believes empty reads the queue at most once, and takes its share', async (t) => {
  const store = await migratedStore(t);
  await queueMeasuredEmpty(store);
  const backlog = 4_000;
  const groups = await queue(store, 'burst', 40, backlog);
  const { rows } = await store.query<{ reltuples: number }>(
    `SELECT sum(c.reltuples)::float8 AS reltuples FROM pg_class c WHERE ${QUEUE_TABLES}`,
  );
  assert.ok(
    rows[0]!.reltuples < 100,
    `the statistics count ${rows[0]!.reltuples} rows: the backlog is unknown to them`,
  );

  for (const [name, scope, waiting] of [
    ['many groups', groups, backlog],
    ['one group', groups[0]!, backlog / groups.length],
  ] as const) {
    const limit = Math.min(1_000, waiting / 2);
    const { taken, plan } = await explainFold(store, scope, limit);
    assert.equal(taken, limit, `${name}: the rows taken`);
    const folded = [...nodesOf(plan.Plan)].find((n) => n['CTE Name'] === 'taken');
    assert.equal(folded?.['Actual Rows'], limit, `${name}: the rows the delete returned to be counted`);
    const read = rowsRead(plan, 'search_keyword_pending');
    // 1,000 scans of the queue would read 4,000,000 rows
    assert.ok(
      read > 0 && read <= backlog + 3_000,
      `${name}: the delete read ${read} rows of a queue of ${backlog + 3_000}`,
    );
  }
});

// A conversation that has run for months holds tens of thousands of rows. A search in it counts
// its query terms' items among the rows that hold one (migration 0048): found by the text index,
// whatever else the conversation holds, and exact.
test("a search's statistics in a long conversation read the rows holding a query term, not all of its rows", async (t) => {
  const store = await migratedStore(t);
  const filler = 20_000;
  const row = (conversationId: string, itemId: string, content: string) => ({
    groupKey: 'long-group',
    kind: 'message' as const,
    itemId,
    conversationId,
    userId: null,
    content,
    occurredAt: new Date('2026-05-01T00:00:00Z'),
    messageIds: [itemId],
  });
  await insertSearchRows(store, [
    ...Array.from({ length: filler }, (_, i) => row('long-chat', `f${i}`, `lunch with the team number ${i}`)),
    ...Array.from({ length: 7 }, (_, i) => row('long-chat', `r${i}`, 'the rollout plan moved')),
    ...Array.from({ length: 3 }, (_, i) => row('long-chat', `p${i}`, 'a plan for dinner')),
    ...Array.from({ length: 7 }, (_, i) => row('side-chat', `s${i}`, 'rollout plan review')),
    // other groups, so that the group is not the whole table
    ...Array.from({ length: filler }, (_, i) => ({
      ...row(`other-${i % 200}`, `o${i}`, `another chat about lunch ${i}`),
      groupKey: `other-${i % 200}`,
    })),
  ]);
  // as autovacuum leaves it: the text index's list of entries still to merge, which the planner
  // prices in, merged
  await store.exec('VACUUM ANALYZE search_items');

  for (const [name, filters, expected] of [
    ['the group', { kinds: ['message'], groupKey: 'long-group' }, { rollout: 14, plan: 17 }],
    ['one conversation', { kinds: ['message'], conversationId: 'long-chat' }, { rollout: 7, plan: 10 }],
    [
      'a list of conversations',
      { kinds: ['message'], conversationIds: ['long-chat', 'side-chat'] },
      { rollout: 14, plan: 17 },
    ],
  ] as Array<[string, SearchFilters, Record<string, number>]>) {
    const { sql, params } = queryStatisticsStatement('the rollout plan for the launch', filters, true);
    const { rows } = await store.query<{ 'QUERY PLAN': Explained[] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
    const read = rowsRead(rows[0]!['QUERY PLAN'][0]!, 'search_items');
    // 17 rows hold a term; a scan of the group would read 20,017
    assert.ok(read > 0 && read <= 100, `${name}: read ${read} search rows of a group holding ${filler + 17}`);
    const { rows: counted } = await store.query<{ df: Record<string, string> }>(sql, params);
    assert.deepEqual(counted[0]!.df, expected, `${name}: the counts`);
  }
});
