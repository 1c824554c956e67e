import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  appendMessages,
  claimEpisodes,
  completeEpisode,
  indexMemories,
  insertEpisodes,
  queueMemoriesToEmbed,
  type Store,
} from '@memstream/store';
import { ctesReadAgain, explainRolledBack, recording } from './explain.js';
import { chatMessage, countsDiffer, migratedStore } from './search-fixtures.js';

/**
 * A memory's keyword row is written by whoever indexes it: the indexer on the extraction event, the
 * sweep when it finds it unindexed, a redelivery, and the queue when its vector fails. Each counts
 * the words it changes against the row it read before writing; run at once, they must still count
 * the memory's words once (real PostgreSQL, several connections).
 */
test("writers of one memory's keyword row at once count its words once", async (t) => {
  const store = await migratedStore(t);
  const [memory] = await memoriesOfOneEpisode(store, ['u']);
  const memoryId = memory!.id;
  // rounds alternate the text, so some writers add the row and others rewrite it
  for (const text of ['u grows tomatoes in the garden', 'u plays the piano', 'u grows tomatoes in the garden']) {
    await Promise.all([
      ...Array.from({ length: 6 }, () =>
        indexMemories(store, 'test-model', [{ memoryId, text, embedding: [0.1, 0.2] }]),
      ),
      ...Array.from({ length: 2 }, () => queueMemoriesToEmbed(store, [{ memoryId, text }])),
    ]);
    assert.deepEqual(await countsDiffer(store), [], `after the writers of "${text}"`);
  }
});

// The memories' vectors are written by the statement that writes their keyword rows. Every CTE
// of it is read once: the planner expects one row of each, and a join of two of them became a
// nested loop reading the inner one again for each outer row, the vectors' text included.
test('indexing memories reads each CTE of its statement once', async (t) => {
  const store = await migratedStore(t);
  const memories = await memoriesOfOneEpisode(
    store,
    Array.from({ length: 12 }, (_, i) => `u${i}`),
  );
  assert.equal(memories.length, 12);
  // other groups' search rows, so that the rows of these memories are probed by key, as at any size
  await store.exec(
    `INSERT INTO search_items (group_key, kind, item_id, conversation_id, user_id, content, occurred_at, message_ids, tsv)
       SELECT 'g' || i % 50, 'message', i::text, 'g' || i % 50, 'u', 'other words', now(), ARRAY['m' || i], to_tsvector('english', 'other words')
         FROM generate_series(1, 5000) i;
     ANALYZE search_items`,
  );
  const { queryable, sent } = recording(store);
  const items = memories.map((m) => ({ memoryId: m.id, text: `${m.content} in the garden`, embedding: [0.1, 0.2] }));
  assert.equal(await indexMemories(queryable, 'test-model', items), 12);
  const write = sent.find((s) => /INSERT INTO search_vectors/.test(s.sql))!;
  const { Plan: plan } = await explainRolledBack(store, write.sql, write.params);
  // every CTE read once but `prior`, the rows as they were before (narrow, and only on a
  // rewrite): read once for each row written, by the one join that pairs them
  assert.deepEqual(ctesReadAgain(plan, ['prior']), []);
});

/** One episode of a message in 'chat', stored with a memory for each of `users`: the memories. */
async function memoriesOfOneEpisode(store: Store, users: readonly string[]) {
  await appendMessages(store, [{ message: chatMessage('chat', 'm0', 'garden words') }]);
  const at = new Date(Date.UTC(2025, 0, 15, 10));
  const span = { startSeq: 0, endSeq: 0, messageIds: ['m0'], startTime: at, endTime: at, reason: 'flush' as const };
  const [episode] = await insertEpisodes(store, 'chat', [span]);
  const [claimed] = await claimEpisodes(store, {
    group: episode!.group_key,
    ids: [episode!.id],
    limit: 1,
    leaseMs: 60_000,
  });
  const memories = await store.transaction((tx) =>
    completeEpisode(
      tx,
      claimed!,
      users.map((u) => ({ userId: u, title: '', content: `${u} grows tomatoes` })),
      { extractor: 'test', participants: [...users] },
    ),
  );
  return memories!;
}
