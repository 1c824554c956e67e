import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forgetMessagesIn } from '@memstream/store';
import { seedGroup } from '../../../test/helpers/eviction-fixtures.js';
import { migratedStore } from './search-fixtures.js';

/**
 * Erasure receipts and retention audits add up what forgetting removed: the search rows of the
 * memories it drops count as much as those of the messages (a receipt once left them out).
 */
test('forgetting a message reports the search rows it removed, of the message and of the memories made from it', async (t) => {
  const store = await migratedStore(t);
  await store.transaction((tx) => seedGroup(tx, { group: 'g1', marker: 'kiwi', deletedAt: null }));
  const rows = async (kind: string) =>
    Number(
      (
        await store.query<{ n: string }>(
          `SELECT count(*) AS n FROM search_items WHERE kind = $1 AND conversation_id = 'g1'`,
          [kind],
        )
      ).rows[0]!.n,
    );
  const before = { message: await rows('message'), memory: await rows('episodic_memory') };

  const result = await store.transaction((tx) => forgetMessagesIn(tx, { conversationId: 'g1', senderId: 'u1' }));

  assert.equal(result.deletedMessages, 1);
  assert.equal(result.deletedMemories, 1);
  assert.equal(result.deletedMessageSearchRows, before.message - (await rows('message')));
  assert.equal(result.deletedMemorySearchRows, before.memory - (await rows('episodic_memory')));
  assert.deepEqual([result.deletedMessageSearchRows, result.deletedMemorySearchRows], [1, 1]);
});
