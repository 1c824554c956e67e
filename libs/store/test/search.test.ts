import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EXACT_SCAN_MAX_ITEMS,
  ensureVectorIndex,
  insertSearchRows,
  keywordSearch,
  migrate,
  setMembership,
  vectorLiteral,
  vectorSearch,
  type Store,
} from '@memstream/store';
import { backends, deleteSearchRowsWhere, log, migratedStore, random, searchRowsOf, WORDS } from './search-fixtures.js';

const MODEL = 'test/clustered-8';

/** Items of one conversation; `text` may repeat words, so term frequencies above 1 occur. */
async function insertItems(
  store: Store,
  rows: Array<{ id: string; conversation: string; text: string; vector?: number[] }>,
  model = MODEL,
): Promise<void> {
  await insertSearchRows(store, searchRowsOf(rows));
  await store.query(
    `INSERT INTO search_vectors (group_key, kind, item_id, conversation_id, user_id, occurred_at, embedding, embedding_model)
     SELECT s.group_key, s.kind, s.item_id, s.conversation_id, s.user_id, s.occurred_at, t.vec::vector, $4
       FROM unnest($1::text[], $2::text[], $3::text[]) AS t(id, c, vec)
       JOIN search_items s ON s.group_key = t.c AND s.kind = 'message' AND s.item_id = t.id
      WHERE t.vec IS NOT NULL`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.conversation),
      rows.map((r) => (r.vector ? `[${r.vector.join(',')}]` : null)),
      model,
    ],
  );
}

/**
 * BM25 the slow, obvious way: each item's lexemes unpacked and their positions counted, the
 * statistics over the scope. keywordSearch gets term frequencies from ts_rank instead; this is
 * what it must agree with.
 */
async function referenceBm25(store: Store, query: string, conversation: string): Promise<Map<string, number>> {
  const { rows } = await store.query<{ item_id: string; bm25: number }>(
    `WITH terms AS (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', $1))),
          scope AS (SELECT item_id, tsv FROM search_items WHERE conversation_id = $2),
          st AS (SELECT count(*)::float8 AS n, GREATEST(avg(length(tsv)), 1)::float8 AS avgdl FROM scope),
          idf AS (SELECT t.lexeme, ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) AS w FROM terms t, st,
                    LATERAL (SELECT count(*)::float8 AS df FROM scope s, unnest(s.tsv) u WHERE u.lexeme = t.lexeme) d)
     SELECT s.item_id, sum(i.w * (cardinality(u.positions) * 2.2) / (cardinality(u.positions) + 1.2 * (0.25 + 0.75 * length(s.tsv) / st.avgdl))) AS bm25
       FROM scope s CROSS JOIN st CROSS JOIN LATERAL unnest(s.tsv) u JOIN idf i ON i.lexeme = u.lexeme
      GROUP BY s.item_id`,
    [query, conversation],
  );
  return new Map(rows.map((r) => [r.item_id, Number(r.bm25)]));
}

for (const [name, open] of backends) {
  test(`${name}: keyword search ranks by BM25 with each term's real frequency, as counting its positions does`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    await migrate(store, log);
    const next = random(7);
    const pick = () => WORDS[Math.floor(next() * WORDS.length)]!;
    // lengths from 1 to 60 words over a small vocabulary: frequencies from 1 to dozens
    const rows = Array.from({ length: 120 }, (_, i) => ({
      id: `i${i}`,
      conversation: 'c1',
      text: Array.from({ length: 1 + Math.floor(next() * 60) }, pick).join(' '),
    }));
    rows.push({ id: 'many', conversation: 'c1', text: Array.from({ length: 300 }, () => 'tomato').join(' ') });
    rows.push({ id: 'elsewhere', conversation: 'c2', text: 'tomato garden harvest' });
    await insertItems(store, rows);

    for (const query of [
      'tomato',
      'garden harvest in Lisbon',
      'the doctor and the flight of coffee',
      'pianos kitchens museums marathons invoices',
    ]) {
      const hits = await keywordSearch(store, query, { kinds: ['message'], conversationId: 'c1' }, 200);
      const expected = await referenceBm25(store, query, 'c1');
      assert.equal(hits.length, expected.size, `${query}: every matching item of the scope, and only those`);
      assert.ok(hits.every((h) => h.conversation_id === 'c1'));
      const most = Math.max(...expected.values());
      for (const [i, h] of hits.entries()) {
        const want = expected.get(h.item_id);
        assert.ok(want !== undefined, `${query}: ${h.item_id} does not match`);
        // scores are BM25 over the query's best possible: their ratios are the reference's
        assert.ok(
          Math.abs(h.score / hits[0]!.score - want / most) < 1e-6,
          `${query}: ${h.item_id} scored ${h.score}, reference ${want}`,
        );
        if (i > 0) assert.ok(hits[i - 1]!.score >= h.score, `${query}: best first`);
      }
    }
    assert.deepEqual(
      await keywordSearch(store, 'the and of', { kinds: ['message'] }, 10),
      [],
      'a query of stop words finds nothing',
    );
  });
}

test('native PostgreSQL: vector search over conversations said to hold more than the exact-scan limit keeps to the scope and finds the nearest, for a large and a small share of the index', async (t) => {
  const store = await migratedStore(t);
  await ensureVectorIndex(store, MODEL, 8);
  const next = random(11);
  // vectors around 16 centres, as embeddings of related texts are; alice owns 9 of 10 conversations, bob one
  const centres = Array.from({ length: 16 }, () => Array.from({ length: 8 }, () => next() - 0.5));
  const near = (c: number[]) => c.map((x) => x + (next() - 0.5) * 0.2);
  const rows = Array.from({ length: 2000 }, (_, i) => ({
    id: `v${i}`,
    conversation: `conv${i % 10}`,
    text: 'x',
    vector: near(centres[i % 16]!),
  }));
  await insertItems(store, rows);
  await store.query(
    `INSERT INTO conversations (id, source_api, next_seq, group_key) SELECT 'conv' || g, 'memory-service', $1, 'conv' || g FROM generate_series(0, 9) g`,
    [
      // the counters say each conversation is large, so neither scope is scanned exactly by size alone
      EXACT_SCAN_MAX_ITEMS + 1,
    ],
  );
  for (let g = 0; g < 9; g++) await setMembership(store, `conv${g}`, 'alice', 'owner');
  await setMembership(store, 'conv9', 'bob', 'owner');
  await store.exec('ANALYZE search_items');

  for (const [person, conversations] of [
    ['alice', 9],
    ['bob', 1],
  ] as const) {
    const query = near(centres[3]!);
    const hits = await vectorSearch(store, query, MODEL, { kinds: ['message'], visibleTo: person }, 50);
    // the reference: every vector of the scope compared (the untyped column matches no index)
    const { rows: exact } = await store.query<{ item_id: string }>(
      `SELECT item_id FROM search_vectors WHERE conversation_id IN (SELECT group_id FROM conversation_memberships WHERE user_id = $1)
        ORDER BY embedding <=> $2::vector LIMIT 50`,
      [person, `[${query.join(',')}]`],
    );
    assert.equal(hits.length, 50, `${person}: the limit is filled`);
    assert.ok(
      hits.every((h) => (person === 'bob' ? h.conversation_id === 'conv9' : h.conversation_id !== 'conv9')),
      `${person}: nothing outside the scope`,
    );
    const expected = new Set(exact.map((h) => h.item_id));
    const found = hits.filter((h) => expected.has(h.item_id)).length;
    assert.ok(found >= 45, `${person} (${conversations} conversations): ${found} of the 50 nearest found`);
    for (const [i, h] of hits.entries()) if (i > 0) assert.ok(hits[i - 1]!.score >= h.score, 'nearest first');
  }
});

/** A bag of words hashed onto `dimension` components, as the hash embedder makes it: each word a component and a sign. */
function bagOfWords(words: readonly number[], dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  for (const w of words) v[w % dimension]! += Math.floor(w / dimension) % 2 ? -1 : 1;
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

test('native PostgreSQL: vector search across every conversation, under the exact-scan limit, finds the nearest whatever graph the index holds', async (t) => {
  // The import-crash test's source and target once ranked the same data differently: the walk of
  // each one's HNSW graph, built in another order, lost the nearest turns (beside 3,000 turns
  // that differ by one word) on one side only.
  const store = await migratedStore(t);
  const dimension = 256;
  const model = 'test/bag-of-words-256';
  await ensureVectorIndex(store, model, dimension);
  const next = random(5);
  const word = () => Math.floor(next() * 100_000);
  const shared = Array.from({ length: 12 }, word);
  const asked = [word(), word(), word()];
  const bulk = Array.from({ length: 3000 }, (_, i) => ({
    id: `bulk${i}`,
    conversation: 'bulk',
    text: 'x',
    vector: bagOfWords([...shared, word()], dimension),
  }));
  const world = Array.from({ length: 20 }, (_, i) => ({
    id: `world${i}`,
    conversation: 'world',
    text: 'x',
    vector: bagOfWords([asked[i % 3]!, word(), word(), word()], dimension),
  }));
  await store.query(
    `INSERT INTO conversations (id, source_api, next_seq, group_key) VALUES ('bulk', 'evermemos', 3000, 'bulk'), ('world', 'evermemos', 20, 'world')`,
  );
  const query = bagOfWords(asked, dimension);
  for (let build = 0; build < 5; build++) {
    await deleteSearchRowsWhere(store, 'true');
    // built as an import's sweep builds it, in batches of 500 taken in no particular order
    const order = [...world, ...bulk].sort(() => next() - 0.5);
    for (let i = 0; i < order.length; i += 500) await insertItems(store, order.slice(i, i + 500), model);
    // as autovacuum leaves the statistics: before it, the planner sorts what it thinks is a few rows
    await store.exec('ANALYZE search_vectors');
    const hits = await vectorSearch(store, query, model, { kinds: ['message'] }, 300);
    const { rows: exact } = await store.query<{ item_id: string }>(
      `SELECT item_id FROM search_vectors ORDER BY embedding <=> $1::vector, item_id LIMIT 300`,
      [`[${query.join(',')}]`],
    );
    assert.deepEqual(
      hits.slice(0, 20).map((h) => h.item_id),
      exact.slice(0, 20).map((h) => h.item_id),
      `build ${build}: the 20 nearest, in order`,
    );
  }
});

test('native PostgreSQL: across every conversation of a store the planner counts past twice the exact-scan limit, the index is walked without summing the counters', async (t) => {
  const store = await migratedStore(t);
  const rows = 2 * EXACT_SCAN_MAX_ITEMS + 1_000;
  // the planner's estimate is this test's to set: no autovacuum counts the rows meanwhile (a
  // partitioned table's, in STORE_LAYOUT=partitioned, is only ever set by an ANALYZE of its own)
  const { rows: kind } = await store.query<{ relkind: string }>(
    `SELECT relkind FROM pg_class WHERE oid = 'search_vectors'::regclass`,
  );
  if (kind[0]?.relkind === 'r') await store.exec('ALTER TABLE search_vectors SET (autovacuum_enabled = false)');
  // rows written straight to the tables (no writer's counts are needed); the counters say 10
  await store.query(
    `INSERT INTO search_items (group_key, kind, item_id, conversation_id, content, occurred_at, message_ids, tsv)
     SELECT 'big', 'message', 'i' || g, 'big', 'x', now(), ARRAY['m' || g], ''::tsvector FROM generate_series(1, $1) g`,
    [rows],
  );
  await store.query(
    `INSERT INTO search_vectors (group_key, kind, item_id, conversation_id, occurred_at, embedding, embedding_model)
     SELECT 'big', 'message', 'i' || g, 'big', now(), ('[' || (g % 97) || ',1,0]')::vector, $2 FROM generate_series(1, $1) g`,
    [rows, MODEL],
  );
  await store.query(
    `INSERT INTO conversations (id, source_api, next_seq, group_key) VALUES ('big', 'evermemos', 10, 'big')`,
  );
  const walks: string[] = [];
  // a walk sets its search width in a transaction of its own; an exact scan is one statement
  const watched = Object.create(store, {
    transaction: {
      value: (fn: Parameters<typeof store.transaction>[0]) => (walks.push('walk'), store.transaction(fn)),
    },
  }) as typeof store;

  const hits = await vectorSearch(watched, [1, 1, 0], MODEL, { kinds: ['message'] }, 10);
  // before its first ANALYZE the planner has no count: the counters decide, and say 10
  assert.deepEqual(walks, [], 'no estimate yet: the counters are summed, and the scope scanned exactly');
  assert.equal(hits.length, 10);
  await store.exec('ANALYZE search_vectors');
  const walked = await vectorSearch(watched, [1, 1, 0], MODEL, { kinds: ['message'] }, 10);
  assert.deepEqual(walks, ['walk'], 'past twice the limit by the estimate: walked');
  assert.equal(walked.length, 10);
});

for (const [name, open] of backends) {
  test(`${name}: a Float32Array vector reaches pgvector exactly, in nine digits a component`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    await migrate(store, log);
    const rnd = random(7);
    // Components of every magnitude a unit vector holds, and the float32 rounding of each.
    const v = Float32Array.from({ length: 384 }, (_, i) => (rnd() - 0.5) * 10 ** -(i % 9));
    const literal = vectorLiteral(v);
    const significant = (x: string) =>
      x
        .replace(/[[\]-]/g, '')
        .replace(/e.*$/, '')
        .replace('.', '')
        .replace(/^0+/, '').length;
    assert.ok(
      literal.split(',').every((x) => significant(x) <= 9),
      'nine significant digits at most',
    );
    const { rows } = await store.query<{ back: string }>('SELECT $1::vector::text AS back', [literal]);
    const back = rows[0]!.back.slice(1, -1).split(',').map(Number);
    assert.deepEqual(
      back.map((x) => Math.fround(x)),
      Array.from(v),
      'pgvector holds the same float4 components',
    );
  });
}

test('native PostgreSQL: indexer replicas that start together each ensure the same vector index, and all of them start', async (t) => {
  const store = await migratedStore(t); // four connections: four replicas at once
  for (const dimension of [8, 16, 24]) {
    const names = await Promise.all(
      [1, 2, 3, 4].map(() => ensureVectorIndex(store, `replicas/${dimension}`, dimension)),
    );
    assert.equal(new Set(names).size, 1);
    const { rows } = await store.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = $1',
      [names[0]],
    );
    assert.equal(rows[0]!.n, 1);
  }
});
