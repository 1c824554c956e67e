import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  appendMessages,
  claimEpisodes,
  completeEpisode,
  indexMemories,
  insertEpisodes,
  queueMemoriesToEmbed,
} from '@memstream/store';
import { chatMessage, countsDiffer, migratedStore } from './search-fixtures.js';

/**
 * A memory's keyword row is written by whoever indexes it: the indexer on the extraction event, the
 * sweep when it finds it unindexed, a redelivery, and the queue when its vector fails. Each counts
 * the words it changes against the row it read before writing; run at once, they must still count
 * the memory's words once (real PostgreSQL, several connections).
 */
test("writers of one memory's keyword row at once count its words once", async (t) => {
  const store = await migratedStore(t);
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
  const stored = await store.transaction((tx) =>
    completeEpisode(tx, claimed!, [{ userId: 'u', title: '', content: 'u grows tomatoes' }], {
      extractor: 'test',
      participants: ['u'],
    }),
  );
  const memoryId = stored![0]!.id;
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
