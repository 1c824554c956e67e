import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { completeEpisode, indexMemories, type Episode } from '@memstream/store';
import { seedGroup } from '../../../test/helpers/eviction-fixtures.js';
import { deleteSearchRowsWhere, heldTransaction, migratedStore } from './search-fixtures.js';

/**
 * An episode is extracted again (its messages changed) while the indexer writes the search row of
 * the memory the new extraction replaces: once both commit, no search row may be left for the
 * superseded memory, or search keeps answering with a memory the episode no longer has. (Marking
 * the memory superseded took no lock the indexer's hold on it conflicts with, so the extraction
 * deleted the search rows before the indexer's row was committed, and it stayed.)
 */
test("an episode's memory superseded while the indexer writes its search row leaves no search row behind", async (t) => {
  const store = await migratedStore(t);
  await store.transaction((tx) => seedGroup(tx, { group: 'g1', marker: 'quokkaword', deletedAt: null }));
  await deleteSearchRowsWhere(store, `kind = 'episodic_memory'`);
  // the extractor's claim of a changed episode: a deletion or a late message bumped its version
  const { rows } = await store.query<Episode>(
    `UPDATE episodes SET version = version + 1, status = 'pending' WHERE conversation_id = 'g1' RETURNING *`,
  );
  const episode = rows[0]!;

  const held = heldTransaction(store, async (tx) => {
    const n = await indexMemories(tx, 'test-model', [
      { memoryId: 'mem-g1', text: 'memory of quokkaword', embedding: [0.1, 0.2, 0.3] },
    ]);
    assert.equal(n, 1);
  });
  await held.ready;

  let done = false;
  const extracting = store
    .transaction((tx) =>
      completeEpisode(tx, episode, [{ userId: null, title: 'a talk', content: 'User One said wombatword' }], {
        extractor: 'test',
        participants: ['u1'],
      }),
    )
    .finally(() => {
      done = true;
    });
  // The extraction either waits for the indexer (the fix) or runs past it; either way the indexer
  // commits only then, as in the race seen.
  for (;;) {
    const { rows: waiting } = await store.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (done || Number(waiting[0]!.n) > 0) break;
    await sleep(20);
  }
  held.commit();
  await held.done;
  const stored = await extracting;
  assert.equal(stored?.length, 1);

  const left = await store.query<{ item_id: string }>(
    `SELECT s.item_id FROM search_items s JOIN episodic_memories m ON m.id = s.item_id
     WHERE s.kind = 'episodic_memory' AND m.superseded_at IS NOT NULL`,
  );
  assert.deepEqual(left.rows, [], 'search rows of superseded memories');
});
