import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendMessages, GENERIC_PLAN, indexMemories, purgeConversationGroups } from '@memstream/store';
import { seedGroup } from '../../../test/helpers/eviction-fixtures.js';
import { deleteSearchRowsWhere, heldTransaction, migratedStore, waitForLockedStatement } from './search-fixtures.js';

/**
 * The indexer writes a memory's search row while a purge (an erasure, an eviction, a retention
 * run) removes the memory's conversation: once the purge commits, no search row may hold the
 * memory's words. (With the search rows deleted before the memories, the indexer's row, written
 * under its hold on the memory, was committed after the purge had looked and stayed behind.)
 */
test('a conversation purged while the indexer writes one of its memories leaves no search row behind', async (t) => {
  const store = await migratedStore(t);
  await store.transaction((tx) => seedGroup(tx, { group: 'g1', marker: 'quokkaword', deletedAt: null }));
  await deleteSearchRowsWhere(store, `kind = 'episodic_memory'`);

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

/**
 * Messages have no foreign key to their conversation (migration 0027): the append statement upserts
 * the conversation row it numbers them from, under that row's lock. A purge holding the lock when
 * an append arrives must still leave every stored message with its conversation, numbered afresh.
 */
test('an append that waits on a purge of its conversation stores its messages under a new conversation row', async (t) => {
  const store = await migratedStore(t);
  await store.transaction((tx) => seedGroup(tx, { group: 'g1', marker: 'quokkaword', deletedAt: null }));
  const message = (i: number) => ({
    conversation_id: 'g1',
    message_id: `after-${i}`,
    sender_id: 'u1',
    sender_name: 'Ann',
    role: 'user' as const,
    content: `written after the purge ${i}`,
    created_at: new Date(Date.UTC(2025, 0, 2, 0, 0, i)),
    refer_list: [],
    metadata: {},
    source_api: 'evermemos' as const,
  });

  const held = heldTransaction(store, async (tx) => {
    const { counts } = await purgeConversationGroups(tx, ['g1']);
    assert.ok(counts.messages > 0, 'the seeded group had messages to purge');
  });
  await held.ready;
  const appending = appendMessages(
    store,
    [0, 1, 2].map((i) => ({ message: message(i) })),
  );
  // a batch this small is the statement marked for a generic plan
  await waitForLockedStatement(store, 'the append waiting on the purge', `${GENERIC_PLAN}\nWITH input`);
  held.commit();
  await held.done;
  const results = await appending;

  assert.deepEqual(
    results.map((r) => [r.duplicate, r.message.seq]),
    [
      [false, 0],
      [false, 1],
      [false, 2],
    ],
  );
  const { rows } = await store.query<{ messages: string; orphans: string; conversations: string }>(
    `SELECT (SELECT count(*) FROM messages WHERE conversation_id = 'g1') AS messages,
            (SELECT count(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM conversations c WHERE c.id = m.conversation_id)) AS orphans,
            (SELECT count(*) FROM conversations WHERE id = 'g1' AND next_seq = 3) AS conversations`,
  );
  assert.deepEqual(rows[0], { messages: 3, orphans: 0, conversations: 1 });
});
