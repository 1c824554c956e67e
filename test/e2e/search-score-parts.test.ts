import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { HYBRID_RANKING, RRF_K } from '@memstream/search';
import { MemstreamClient, type ScoreParts, type SearchHit } from '@memstream/client';
import { embeddedMemstream } from '../helpers/embedded.js';
import { uniqueName, waitFor } from '../helpers/infra.js';
import { call } from '../helpers/evermemos-client.js';

const LINES = [
  'The venue by the river in Lisbon holds twelve people.',
  'Flights to Lisbon from Berlin are cheapest on Tuesdays.',
  'We booked the venue for the second week of May.',
  'Carol sends the agenda by Friday.',
  'The budget for the Lisbon offsite is nine thousand euros.',
  'Remember the pastel de nata tasting on Thursday.',
];

/** What the parts add up to, by the definition the API documents: Σ weight × value / divisor. */
const total = (p: ScoreParts) => p.terms.reduce((sum, t) => sum + t.weight * t.value, 0) / p.divisor;
const term = (p: ScoreParts, name: string) => p.terms.find((t) => t.name === name);

test('a search with explain answers each hit’s score parts, and they add up to its fused score', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { EMBEDDING_PROVIDER: 'hash' });
  const client = new MemstreamClient({ baseUrl: base });
  const group = uniqueName('parts');
  for (const [i, content] of LINES.entries())
    await client.evermemos.write({
      group_id: group,
      message_id: `${group}-${i}`,
      create_time: new Date(Date.UTC(2025, 4, 8, 9, i)).toISOString(),
      sender: 'alice',
      content,
    });
  const search = (retrieve_method: 'keyword' | 'vector' | 'hybrid' | 'rrf', explain?: boolean) =>
    client.evermemos.search({
      query: 'venue in Lisbon',
      group_id: group,
      retrieve_method,
      memory_types: ['message'],
      top_k: 5,
      ...(explain === undefined ? {} : { explain }),
    });
  // every message embedded (the vector list complete), so each method sees them all
  await waitFor('every message searchable by vector', async () => {
    const { result } = await search('vector');
    return result.memories.length === 5;
  });

  const partsOf = (h: SearchHit) => {
    assert.ok(h.score_parts, `hit ${h.id} has score parts`);
    const p = h.score_parts;
    assert.ok(Math.abs(total(p) - p.fused) < 1e-9, `${h.id}: parts add up to ${total(p)}, fused ${p.fused}`);
    assert.ok(Math.abs(h.score - p.fused) <= 5e-7, `${h.id}: score ${h.score} is the fused ${p.fused}, rounded`);
    return p;
  };

  await t.test('keyword and vector alone: one term, the method’s score, and the hit’s place in its list', async () => {
    for (const method of ['keyword', 'vector'] as const) {
      const { result } = await search(method, true);
      assert.ok(result.memories.length > 0, method);
      result.memories.forEach((h, i) => {
        const p = partsOf(h);
        assert.deepEqual(p.terms, [{ name: method, weight: 1, value: p.fused }]);
        assert.equal(p.divisor, 1);
        const standing = method === 'keyword' ? p.keyword?.score : p.vector?.similarity;
        assert.equal(standing, p.fused);
        assert.equal((method === 'keyword' ? p.keyword : p.vector)?.rank, i + 1);
        assert.equal(method === 'keyword' ? p.vector : p.keyword, null, 'the other method did not run');
      });
    }
  });

  await t.test('rrf: 1 / (K + rank) from each list, over what a first place in both gets', async () => {
    const { result } = await search('rrf', true);
    assert.ok(result.memories.length > 0);
    for (const h of result.memories) {
      const p = partsOf(h);
      assert.equal(p.divisor, 2 / (RRF_K + 1));
      const fromList = (standing: { rank: number } | null) => (standing ? 1 / (RRF_K + standing.rank) : 0);
      assert.equal(term(p, 'keyword_rank')?.value, fromList(p.keyword));
      assert.equal(term(p, 'vector_rank')?.value, fromList(p.vector));
      assert.ok(p.keyword || p.vector, 'a fused hit stood in one list at least');
    }
  });

  await t.test(
    'hybrid: the weighted, rescaled methods and the contextual terms, over the most they could be',
    async () => {
      const { result } = await search('hybrid', true);
      assert.ok(result.memories.length > 0);
      const r = HYBRID_RANKING;
      const most = 1 + r.context + r.memory + r.participant + r.date + r.when;
      for (const h of result.memories) {
        const p = partsOf(h);
        assert.equal(p.divisor, most);
        assert.deepEqual(
          p.terms.map((x) => [x.name, x.weight]),
          [
            ['keyword', 1 - r.vectorWeight],
            ['vector', r.vectorWeight],
            ['context', r.context],
            ['memory', r.memory],
            ['participant', r.participant],
            ['date', r.date],
            ['when', r.when],
          ],
        );
        for (const x of p.terms) assert.ok(x.value >= 0 && x.value <= 1, `${x.name} ${x.value}`);
        // a method that did not return the hit adds nothing for it
        if (!p.keyword) assert.equal(term(p, 'keyword')?.value, 0);
        if (!p.vector) assert.equal(term(p, 'vector')?.value, 0);
      }
      assert.ok(
        result.memories.some((h) => h.score_parts?.keyword && h.score_parts.vector),
        'the best hits stand in both lists',
      );
    },
  );

  await t.test('without explain, and on EverMemOS’s GET, hits are as before; a non-boolean is refused', async () => {
    const plain = await search('hybrid');
    assert.ok(plain.result.memories.length > 0);
    for (const h of plain.result.memories) assert.equal('score_parts' in h, false);
    const grouped = await call<{ result: { memories: Record<string, Record<string, unknown>[]>[] } }>(
      base,
      'GET',
      `/api/v1/memories/search?query=venue&group_id=${group}&memory_types=message&explain=true`,
    );
    assert.equal(grouped.status, 200);
    const hits = grouped.body.result.memories.flatMap((g) => Object.values(g).flat());
    assert.ok(hits.length > 0);
    for (const h of hits) assert.equal('score_parts' in h, false);
    const refused = await call<Record<string, unknown>>(base, 'POST', '/api/v1/memories/search', {
      query: 'venue',
      group_id: group,
      explain: 'yes',
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body['status'], 'failed');
  });
});
