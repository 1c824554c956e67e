import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHashEmbedder } from '@memstream/embedding';
import { Indexer } from '@memstream/indexer';
import { createLogger } from '@memstream/logging';
import { claimEpisodes, completeEpisode, insertEpisodes, type Store } from '@memstream/store';
import { refusing } from './refusing-embedder.js';
import { storedMessages } from './stored-messages.js';

const log = createLogger({ service: 'test', level: 'silent' });
const MINUTE = 60_000;
const BACKOFF = { backoff: { firstMs: MINUTE, maxMs: 10 * MINUTE } };

/** Memories of one episode of the stored conversation, extracted but not indexed (their event lost). */
async function memoriesWithoutIndex(store: Store, texts: readonly string[]): Promise<string[]> {
  const [episode] = await insertEpisodes(store, 'g', [
    {
      startSeq: 0,
      endSeq: 0,
      messageIds: ['m0'],
      startTime: new Date(Date.UTC(2025, 0, 15, 10)),
      endTime: new Date(Date.UTC(2025, 0, 15, 10)),
      reason: 'flush',
    },
  ]);
  const [claimed] = await claimEpisodes(store, {
    group: episode!.group_key,
    ids: [episode!.id],
    limit: 1,
    leaseMs: MINUTE,
  });
  const memories = await store.transaction((tx) =>
    completeEpisode(
      tx,
      claimed!,
      texts.map((content, i) => ({ userId: `u${i}`, title: '', content })),
      { extractor: 'test', participants: ['u1'] },
    ),
  );
  return memories!.map((m) => m.id);
}

const searchRows = async (store: Store, kind: string) =>
  (
    await store.query<{ content: string; model: string | null; queued: boolean }>(
      `SELECT s.content, v.embedding_model AS model, u.item_id IS NOT NULL AS queued
       FROM search_items s
       LEFT JOIN search_vectors v USING (kind, item_id)
       LEFT JOIN search_unembedded u USING (kind, item_id)
       WHERE s.kind = $1 ORDER BY s.content`,
      [kind],
    )
  ).rows;

test('a memory whose vector fails every time is found by its words and waits on the queue; the sweep goes on past it', async (t) => {
  const { store } = await storedMessages(t, ['We meet at the lake.']);
  await memoriesWithoutIndex(store, ['They meet at the lake.', 'A poison memory.', 'Ann brings the canoe.']);
  const embedder = refusing('poison');
  const indexer = new Indexer(store, embedder, 100, log, BACKOFF);

  await indexer.sweep();
  assert.deepEqual(await searchRows(store, 'episodic_memory'), [
    { content: 'A poison memory.', model: null, queued: true },
    { content: 'Ann brings the canoe.', model: embedder.model, queued: false },
    { content: 'They meet at the lake.', model: embedder.model, queued: false },
  ]);
  const { rows } = await store.query<{ id: string }>(
    `SELECT item_id AS id FROM search_items WHERE kind = 'episodic_memory' AND tsv @@ plainto_tsquery('english', 'poison')`,
  );
  assert.equal(rows.length, 1, 'its keyword side is written');

  // The message, never indexed either, was reached in the same sweep: the failure held nothing back.
  assert.deepEqual(await searchRows(store, 'message'), [
    { content: 'Alice: We meet at the lake.', model: null, queued: false },
  ]);
  const tried = embedder.texts.length;
  await indexer.sweep();
  assert.equal(embedder.texts.length, tried, 'not tried again before its backoff');
});

test('after a model change, a vector that cannot be made again waits on the queue and the rest of the backlog is re-embedded', async (t) => {
  const { store, messages } = await storedMessages(t, [
    'The cabin key is under the mat.',
    'This one the new model refuses: poison.',
    'Bring the blue canoe.',
    'Dinner is at seven.',
  ]);
  const first = createHashEmbedder({ dimension: 16 });
  await new Indexer(store, first, 100, log).indexMessages(messages);
  const next = refusing('poison', 24);
  const indexer = new Indexer(store, next, 2, log, BACKOFF); // two a round: the refused one heads the backlog

  for (let round = 0; round < 4; round++) await indexer.sweep();
  assert.deepEqual(await searchRows(store, 'message'), [
    { content: 'Alice: Bring the blue canoe.', model: next.model, queued: false },
    { content: 'Alice: Dinner is at seven.', model: next.model, queued: false },
    { content: 'Alice: The cabin key is under the mat.', model: next.model, queued: false },
    { content: 'Alice: This one the new model refuses: poison.', model: first.model, queued: true },
  ]);
  const refusals = next.texts.filter((x) => x.includes('poison')).length;
  assert.equal(refusals, 2, 'refused once in its batch and once alone, then left to its backoff');
});
