import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendMessages, forgetMessagesIn, indexMessages, type NewMessage } from '@memstream/store';
import { migratedStore, waitForLockedStatement } from './search-fixtures.js';

const message: NewMessage = {
  conversation_id: 'c1',
  message_id: 'm1',
  sender_id: 'pia',
  sender_name: 'pia',
  role: 'user',
  content: 'wombatword in a message about to be erased',
  created_at: new Date(Date.UTC(2025, 0, 15, 10)),
  refer_list: [],
  metadata: {},
  source_api: 'memory-service',
};

/**
 * The indexer gives a message its vector while a deletion of the message is under way: once the
 * deletion commits, no search row may hold the message's words. (The indexer's statement saw the
 * message in its snapshot; without holding it, the deleted search row left its key free and the
 * insert wrote the words back.)
 */
test('a message deleted while the indexer embeds it leaves no search row behind', async (t) => {
  const store = await migratedStore(t);
  await appendMessages(store, [{ message }]);

  let commit!: () => void;
  const committed = new Promise<void>((resolve) => {
    commit = resolve;
  });
  let deleted!: () => void;
  const deletedYet = new Promise<void>((resolve) => {
    deleted = resolve;
  });
  const deletion = store.transaction(async (tx) => {
    await forgetMessagesIn(tx, { senderId: 'pia' });
    deleted();
    await committed;
  });
  await deletedYet;
  const indexing = indexMessages(store, 'test-model', [
    { groupKey: 'c1', conversationId: 'c1', messageId: 'm1', text: message.content, embedding: [0.1, 0.2, 0.3] },
  ]);
  await waitForLockedStatement(store, 'the indexer waiting on the deletion', 'WITH held AS');
  commit();
  await deletion;
  await indexing;

  const { rows } = await store.query<{ n: string }>(
    `SELECT count(*) AS n FROM search_items WHERE content LIKE '%wombatword%'`,
  );
  assert.equal(Number(rows[0]!.n), 0);
  const pending = await store.query<{ n: string }>(`SELECT count(*) AS n FROM search_keyword_pending`);
  assert.equal(Number(pending.rows[0]!.n), 0);
});
