import { test } from 'node:test';
import assert from 'node:assert/strict';
import { indexMemories, purgeConversationGroups } from '@memstream/store';
import { seedGroup } from './eviction-fixtures.js';
import { heldTransaction, migratedStore, waitForLockedStatement } from './search-fixtures.js';

/**
 * The indexer writes a memory's search row while a purge (an erasure, an eviction, a retention
 * run) removes the memory's conversation: once the purge commits, no search row may hold the
 * memory's words. (With the search rows deleted before the memories, the indexer's row, written
 * under its hold on the memory, was committed after the purge had looked and stayed behind.)
 */
test('a conversation purged while the indexer writes one of its memories leaves no search row behind', async (t) => {
  const store = await migratedStore(t);
  await store.transaction((tx) => seedGroup(tx, { group: 'g1', marker: 'quokkaword', deletedAt: null }));
  await store.query(`DELETE FROM search_items WHERE kind = 'episodic_memory'`);

  const held = heldTransaction(store, async (tx) => {
    const n = await indexMemories(tx, 'test-model', [
      { memoryId: 'mem-g1', text: 'memory of quokkaword', embedding: [0.1, 0.2, 0.3] },
    ]);
    assert.equal(n, 1);
  });
  await held.ready;
  const purging = store.transaction((tx) => purgeConversationGroups(tx, ['g1']));
  await waitForLockedStatement(store, 'the purge waiting on the indexer', 'DELETE FROM');
  held.commit();
  await held.done;
  await purging;

  const { rows } = await store.query<{ n: string }>(
    `SELECT count(*) AS n FROM search_items WHERE content LIKE '%quokkaword%'`,
  );
  assert.equal(Number(rows[0]!.n), 0);
});
