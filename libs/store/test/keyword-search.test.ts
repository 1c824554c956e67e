import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  foldKeywordCounts,
  insertSearchRows,
  keywordSearch,
  migrate,
  removeMembership,
  scoringFloor,
  setMembership,
  type Store,
} from '@memstream/store';
import { backends, countsDiffer, deleteSearchRowsWhere, log, random, searchRowsOf, WORDS } from './search-fixtures.js';

const textOf = (next: () => number, words = WORDS) =>
  Array.from({ length: 1 + Math.floor(next() * 30) }, () => words[Math.floor(next() * words.length)]!).join(' ');

/**
 * Writes search rows through the writers that count their words (each conversation its own
 * group): a row whose text changed is deleted and written anew, one whose text is the same is
 * left, as a redelivery leaves it.
 */
async function upsert(
  store: Store,
  rows: ReadonlyArray<{ id: string; conversation: string; text: string; kind?: 'message' | 'episodic_memory' }>,
): Promise<void> {
  const { rows: changed } = await store.query<{ item_id: string }>(
    `SELECT s.item_id FROM search_items s JOIN unnest($1::text[], $2::text[]) AS t(id, body)
        ON s.item_id = t.id AND s.content <> t.body`,
    [rows.map((r) => r.id), rows.map((r) => r.text)],
  );
  await deleteSearchRowsWhere(store, 'item_id = ANY($1::text[])', [changed.map((r) => r.item_id)]);
  await insertSearchRows(store, searchRowsOf(rows));
}

/**
 * BM25 the slow, obvious way over a person's conversations (every conversation when `person` is
 * undefined): every item's lexemes unpacked and their positions counted, the statistics counted
 * over the scope as it is now.
 */
async function referenceRanking(
  store: Store,
  query: string,
  person: string | undefined,
): Promise<Array<{ item_id: string; bm25: number }>> {
  const { rows } = await store.query<{ item_id: string; bm25: number }>(
    `WITH terms AS (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', $1))),
          scope AS (SELECT item_id, occurred_at, tsv FROM search_items
                     WHERE kind = 'message'
                       AND ($2::text IS NULL OR conversation_id IN (SELECT group_id FROM conversation_memberships WHERE user_id = $2))),
          st AS (SELECT count(*)::float8 AS n, GREATEST(avg(length(tsv)), 1)::float8 AS avgdl FROM scope),
          idf AS (SELECT t.lexeme, ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) AS w FROM terms t, st,
                    LATERAL (SELECT count(*)::float8 AS df FROM scope s, unnest(s.tsv) u WHERE u.lexeme = t.lexeme) d)
     SELECT s.item_id, sum(i.w * (cardinality(u.positions) * 2.2) / (cardinality(u.positions) + 1.2 * (0.25 + 0.75 * length(s.tsv) / st.avgdl))) AS bm25
       FROM scope s CROSS JOIN st CROSS JOIN LATERAL unnest(s.tsv) u JOIN idf i ON i.lexeme = u.lexeme
      GROUP BY s.item_id, s.occurred_at
      ORDER BY bm25 DESC, s.occurred_at DESC, s.item_id`,
    [query, person ?? null],
  );
  return rows.map((r) => ({ item_id: r.item_id, bm25: Number(r.bm25) }));
}

for (const [name, open] of backends) {
  test(`${name}: the kept keyword counts equal a recount after inserts, redelivered and changed texts, re-embedding and deletions`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    await migrate(store, log);
    const next = random(3);
    const ids = Array.from({ length: 60 }, (_, i) => ({ id: `i${i}`, conversation: `c${i % 5}` }));
    await upsert(
      store,
      ids.map((r) => ({ ...r, text: textOf(next) })),
    );
    await upsert(store, [{ id: 'm1', conversation: 'c1', text: 'garden memory', kind: 'episodic_memory' }]);
    assert.deepEqual(await countsDiffer(store), [], 'after the first writes');

    const snapshot = async () =>
      (await store.query('SELECT * FROM search_keyword_overall_frequencies ORDER BY 1, 2, 3')).rows.concat(
        (await store.query('SELECT * FROM search_keyword_totals ORDER BY 1, 2, 3, 4')).rows,
      );
    const before = await snapshot();
    const { rows: same } = await store.query<{ item_id: string; content: string; conversation_id: string }>(
      `SELECT item_id, content, conversation_id FROM search_items WHERE kind = 'message'`,
    );
    await upsert(
      store,
      same.map((r) => ({ id: r.item_id, conversation: r.conversation_id, text: r.content })),
    );
    assert.deepEqual(await snapshot(), before, 'a redelivery of the same texts counts nothing twice');
    await store.query(`UPDATE search_items SET indexed_at = now()`);
    assert.deepEqual(await snapshot(), before, 'an update that leaves the words leaves the counts');

    for (let round = 0; round < 5; round++) {
      const changed = ids.filter(() => next() < 0.3).map((r) => ({ ...r, text: textOf(next) }));
      await upsert(store, changed);
      const gone = ids.filter(() => next() < 0.1).map((r) => r.id);
      await deleteSearchRowsWhere(store, `kind = 'message' AND item_id = ANY($1::text[])`, [gone]);
      assert.deepEqual(await countsDiffer(store), [], `round ${round}: after changed texts and deletions`);
      // rounds before the fold change and delete messages still pending, rounds after it counted ones
      if (round === 2) {
        await foldKeywordCounts(store, 1_000);
        assert.deepEqual(await countsDiffer(store), [], 'after the fold');
        assert.equal(
          (await store.query('SELECT * FROM search_keyword_pending')).rows.length,
          0,
          'nothing left pending',
        );
      }
    }
    await deleteSearchRowsWhere(store, 'true');
    assert.deepEqual(await countsDiffer(store), [], 'everything deleted');
    assert.equal(
      (await store.query('SELECT * FROM search_keyword_overall_frequencies')).rows.length,
      0,
      'no lexeme is left counted at 0',
    );
  });

  test(`${name}: keyword search over a person's conversations, and over every conversation, returns exactly the best items by BM25 over them, for any limit, and follows sharing and revoking at once`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    await migrate(store, log);
    const next = random(17);
    // eight conversations of alice, two of bob; a few common words and some rare ones
    const words = [...WORDS, 'zebra', 'quartz'];
    const rows = Array.from({ length: 400 }, (_, i) => ({
      id: `i${i}`,
      conversation: `c${i % 10}`,
      text: textOf(next, next() < 0.1 ? words : WORDS),
    }));
    await upsert(store, rows);
    for (let g = 0; g < 8; g++) await setMembership(store, `c${g}`, 'alice', 'owner');
    await setMembership(store, 'c8', 'bob', 'owner');
    await setMembership(store, 'c9', 'bob', 'owner');

    const check = async (label: string) => {
      for (const query of [
        'garden tomato',
        'harvest in lisbon with coffee',
        'the zebra and the piano',
        'quartz',
        'museum marathon kitchen doctor flight invoice',
      ]) {
        for (const person of ['alice', undefined]) {
          const reference = await referenceRanking(store, query, person);
          const scope = person === undefined ? 'every conversation' : person;
          for (const limit of [1, 5, 20, 500]) {
            const hits = await keywordSearch(store, query, { kinds: ['message'], visibleTo: person }, limit);
            const want = reference.slice(0, limit);
            const byId = new Map(reference.map((r) => [r.item_id, r.bm25]));
            const what = `${label}, ${scope}, "${query}"`;
            assert.equal(hits.length, want.length, `${what}, limit ${limit}: as many hits as the reference`);
            // equal scores may be ordered either way by two ways of summing: compare the scores, position by position
            for (const [i, h] of hits.entries()) {
              const bm25 = byId.get(h.item_id);
              assert.ok(bm25 !== undefined, `${what}: ${h.item_id} is outside the scope or matches nothing`);
              assert.ok(
                Math.abs(bm25 - want[i]!.bm25) <= 1e-9 * want[i]!.bm25,
                `${what}, limit ${limit}: hit ${i} scores ${bm25}, the reference's ${want[i]!.bm25}`,
              );
              assert.ok(
                Math.abs(h.score / hits[0]!.score - bm25 / want[0]!.bm25) < 1e-9,
                `${what}: ${h.item_id}'s score`,
              );
            }
          }
        }
      }
    };
    await check('alice alone');
    await setMembership(store, 'c9', 'alice', 'reader');
    await check('c9 shared with alice');
    await removeMembership(store, 'c0', 'alice');
    await removeMembership(store, 'c9', 'alice');
    await check('c0 and c9 revoked');
    // the statistics are the same whether a message's counts are pending, folded, or some of each
    await foldKeywordCounts(store, 150);
    await check('a part of the counts folded');
    await foldKeywordCounts(store, 1_000);
    await check('every count folded');
  });
}

test('the scoring floor keeps the candidates a search scores within the budget, and is 0 when every match fits', () => {
  const term = (lexeme: string, share: number, items: number) => ({
    lexeme,
    bound: Math.log(1 + (items - share * items + 0.5) / (share * items + 0.5)) * 2.2,
    share,
  });
  const items = 6_000_000;
  const common = [term('great', 0.08, items), term('think', 0.06, items), term('time', 0.05, items)];
  const all = common.reduce((sum, t) => sum + t.bound, 0);
  const bound = (...lexemes: string[]) =>
    common.filter((t) => lexemes.includes(t.lexeme)).reduce((sum, t) => sum + t.bound, 0);
  const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;
  // every item holding a common word is over a million. Expected, terms independent: all three
  // 1,440, then (by bound) think+time 16,560, great+time 22,560, great+think 27,360
  assert.ok(close(scoringFloor(common, items, 10_000), all), 'room for the items holding all three only');
  assert.ok(close(scoringFloor(common, items, 20_000), bound('think', 'time')), 'and the rarest pair');
  assert.ok(close(scoringFloor(common, items, 100_000), bound('great', 'think')), 'and every pair');
  // a scope of 10,000 items fits whole: no floor, the search stays exact
  assert.equal(scoringFloor([term('great', 0.08, 10_000), term('time', 0.05, 10_000)], 10_000, 20_000), 0);
  assert.equal(scoringFloor([], items, 20_000), 0);
});

for (const [name, open] of backends) {
  test(`${name}: past its scoring budget a keyword search answers the best of the items holding the rarest terms`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    await migrate(store, log);
    const filler = (from: number, n: number) => Array.from({ length: n }, (_, i) => `w${from + i}`).join(' ');
    // 'lantern' in three items of four, 'quill' in a quarter: the one item that is 'quill' alone,
    // said thirty times, is the best by BM25, the others holding both words once in a long text
    const rows = [
      { id: 'only-quill', conversation: 'c0', text: 'quill '.repeat(30) },
      ...Array.from({ length: 100 }, (_, i) => ({
        id: `q${i}`,
        conversation: `c${i % 4}`,
        text: `lantern quill ${filler(i, 60)}`,
      })),
      ...Array.from({ length: 199 }, (_, i) => ({
        id: `l${i}`,
        conversation: `c${i % 4}`,
        text: `lantern ${filler(i, 3)}`,
      })),
      ...Array.from({ length: 100 }, (_, i) => ({ id: `f${i}`, conversation: `c${i % 4}`, text: filler(i, 5) })),
    ];
    await upsert(store, rows);
    const reference = await referenceRanking(store, 'lantern quill', undefined);
    assert.equal(reference[0]?.item_id, 'only-quill', 'the data is as meant: one word alone ranks first');
    const everything = { kinds: ['message'] as const };
    const unbounded = await keywordSearch(store, 'lantern quill', everything, 5);
    assert.equal(unbounded[0]?.item_id, 'only-quill', 'within the budget the answer is exact');
    // a budget of 50 items: both words are expected in ~75 items, so those, and no item holding one word, are scored
    const bounded = await keywordSearch(store, 'lantern quill', everything, 5, { maxScored: 50 });
    assert.equal(bounded.length, 5);
    assert.ok(
      bounded.every((h) => h.item_id.startsWith('q')),
      `only items holding both words: ${bounded.map((h) => h.item_id).join(', ')}`,
    );
    // and they are the best of those, in the reference's order
    const bestOfBoth = reference.filter((r) => r.item_id.startsWith('q')).slice(0, 5);
    const byId = new Map(reference.map((r) => [r.item_id, r.bm25]));
    for (const [i, h] of bounded.entries())
      assert.ok(Math.abs(byId.get(h.item_id)! - bestOfBoth[i]!.bm25) <= 1e-9 * bestOfBoth[i]!.bm25, `hit ${i}`);
  });
}
