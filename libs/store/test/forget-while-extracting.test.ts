import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completeEpisode, forgetMessagesIn, type Episode } from '@memstream/store';
import { seedGroup } from '../../../test/helpers/eviction-fixtures.js';
import { heldTransaction, migratedStore, waitForLockedStatement } from './search-fixtures.js';

/**
 * The extractor stores an episode's memories while a deletion (an erasure, EverMemOS's DELETE)
 * forgets one of the episode's messages: once both commit, no memory made from the forgotten words
 * may be left. (The deletion looked for the episode's memories before the extraction committed
 * them, then waited for the episode row and only reopened it: the memories it never saw stayed,
 * quoting the words it removed.)
 */
test('a message forgotten while its episode is being stored leaves no memory made from it', async (t) => {
  const store = await migratedStore(t);
  await store.transaction((tx) => seedGroup(tx, { group: 'g1', marker: 'quokkaword', deletedAt: null }));
  const { rows } = await store.query<Episode>(`SELECT * FROM episodes WHERE conversation_id = 'g1'`);
  const episode = rows[0]!;

  const held = heldTransaction(store, async (tx) => {
    const memories = await completeEpisode(
      tx,
      episode,
      [{ userId: null, title: 'a talk', content: 'User One said wombatword' }],
      { extractor: 'test', participants: ['u1'] },
    );
    assert.equal(memories?.length, 1);
  });
  await held.ready;
  const forgetting = store.transaction((tx) => forgetMessagesIn(tx, { conversationId: 'g1', senderId: 'u1' }));
  await waitForLockedStatement(store, 'the deletion waiting on the extraction', '');
  held.commit();
  await held.done;
  await forgetting;

  const left = await store.query<{ n: string }>(
    `SELECT count(*) AS n FROM episodic_memories WHERE content LIKE '%wombatword%'`,
  );
  assert.equal(Number(left.rows[0]!.n), 0);
});
