import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appendMessages, foldKeywordCounts, mendOverallKeywordSums, type Store } from '@memstream/store';
import { chatMessage, countsDiffer, migratedStore } from './search-fixtures.js';
import { testShardGroups } from '../../../harness/store-layout.js';

/**
 * The sums over every conversation (migration 0045) fall short when a writer older than it counts
 * a conversation's words without them (a converter left running through a rolling upgrade). The
 * governance worker's check sums them again; with nothing drifted it leaves them alone.
 */
async function storeWithWords(t: Parameters<typeof migratedStore>[0]): Promise<Store> {
  const store = await migratedStore(t);
  await appendMessages(
    store,
    [
      chatMessage('chat-a', 'a0', 'the garden tomato harvest'),
      chatMessage('chat-a', 'a1', 'tomato tomato piano lesson'),
      chatMessage('chat-b', 'b0', 'coffee and the marathon'),
    ].map((message) => ({ message })),
  );
  await foldKeywordCounts(store, 1_000, testShardGroups());
  assert.deepEqual(await countsDiffer(store), [], 'the writers keep the sums');
  return store;
}

test('sums left short by a writer that did not keep them are summed again from the conversations', async (t) => {
  const store = await storeWithWords(t);
  // What an older converter leaves when it stores and folds one more message into chat-b: its
  // search row, and the conversation's totals moved; the sums over every conversation did not.
  await store.query(
    `INSERT INTO search_items (group_key, kind, item_id, conversation_id, user_id, content, occurred_at, message_ids, tsv, audience)
     SELECT group_key, kind, 'older-writer', conversation_id, user_id, 'marathon coffee', occurred_at, message_ids,
            to_tsvector('english', 'marathon coffee'), audience
       FROM search_items WHERE conversation_id = 'chat-b'`,
  );
  await store.query(
    `UPDATE search_keyword_totals SET items = items + 1, lexemes = lexemes + 2 WHERE conversation_id = 'chat-b'`,
  );
  const before = await countsDiffer(store);
  assert.ok(
    before.some((row) => (row as { sums?: string }).sums === 'overall'),
    'the sums fell short of the counts',
  );

  assert.equal(await mendOverallKeywordSums(store), true);
  assert.deepEqual(await countsDiffer(store), []);
  const { rows } = await store.query<{ items: string }>(
    `SELECT items FROM search_keyword_overall_frequencies WHERE lexeme = 'marathon'`,
  );
  assert.deepEqual(
    rows.map((r) => Number(r.items)),
    [2],
  );
  assert.equal(await mendOverallKeywordSums(store), false, 'mended once, nothing left to mend');
});

test('sums that agree with the counts are left alone', async (t) => {
  const store = await storeWithWords(t);
  // A sum the check would replace if it summed again: a mark only a recount removes.
  const { rows: before } = await store.query<{ ctid: string }>(
    `SELECT ctid::text FROM search_keyword_overall_frequencies WHERE lexeme = 'tomato'`,
  );
  assert.equal(await mendOverallKeywordSums(store), false);
  const { rows: after } = await store.query<{ ctid: string }>(
    `SELECT ctid::text FROM search_keyword_overall_frequencies WHERE lexeme = 'tomato'`,
  );
  assert.deepEqual(after, before, 'the row was not written again');
  assert.deepEqual(await countsDiffer(store), []);
});
