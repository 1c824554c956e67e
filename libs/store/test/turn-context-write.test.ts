import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appendMessages,
  forgetMessages,
  forgetMessagesIn,
  turnEmbeddingInputs,
  writeMessageVectors,
  type NewMessage,
  type Store,
} from '@memstream/store';
import { migratedStore, waitForLockedStatement } from './search-fixtures.js';

const turn = (id: string, minute: number, content: string): NewMessage => ({
  conversation_id: 'c1',
  message_id: id,
  sender_id: 'pia',
  sender_name: 'Pia',
  role: 'user',
  content,
  created_at: new Date(Date.UTC(2025, 0, 15, 10, minute)),
  refer_list: [],
  metadata: {},
  source_api: 'evermemos',
});

async function vectorOf(store: Store, messageId: string): Promise<string | null> {
  const { rows } = await store.query<{ v: string | null }>(
    `SELECT v.embedding::text AS v FROM search_items s
       LEFT JOIN search_vectors v ON v.kind = s.kind AND v.item_id = s.item_id
      WHERE s.kind = 'message' AND s.message_ids[1] = $1`,
    [messageId],
  );
  return rows[0]!.v;
}

/** m1 embedded after m0, as the indexer would write it (the vector stands for "m0's words and m1's"). */
async function contextualWrite(store: Store) {
  const [input] = await turnEmbeddingInputs(store, [{ conversationId: 'c1', messageId: 'm1' }], true);
  assert.ok(input?.contextItemId, 'm1 has m0 before it');
  return () =>
    writeMessageVectors(store, 'model+turn-before', [
      { ...input, embedding: [0.6, 0.8], contextItemId: input.contextItemId },
    ]);
}

test('a vector made after a turn that is forgotten before the vector is written is refused', async (t) => {
  const store = await migratedStore(t);
  await appendMessages(store, [{ message: turn('m0', 0, 'wombatword here') }, { message: turn('m1', 1, 'and so?') }]);
  const write = await contextualWrite(store);
  await forgetMessages(store, { conversationId: 'c1', messageId: 'm0' });
  assert.deepEqual(await write(), []);
  assert.equal(await vectorOf(store, 'm1'), null);
});

test('a vector made after a turn whose forgetting is under way waits for it, then is refused', async (t) => {
  const store = await migratedStore(t);
  await appendMessages(store, [{ message: turn('m0', 0, 'wombatword here') }, { message: turn('m1', 1, 'and so?') }]);
  // written once already, so the deletion's clearing of m1's vector holds m1's row as well
  assert.equal((await (await contextualWrite(store))()).length, 1);
  const write = await contextualWrite(store);

  let commit!: () => void;
  const committed = new Promise<void>((resolve) => {
    commit = resolve;
  });
  let forgotten!: () => void;
  const forgottenYet = new Promise<void>((resolve) => {
    forgotten = resolve;
  });
  const deletion = store.transaction(async (tx) => {
    await forgetMessagesIn(tx, { conversationId: 'c1', messageId: 'm0' });
    forgotten();
    await committed;
  });
  await forgottenYet;
  const writing = write();
  await waitForLockedStatement(store, 'the vector write waiting on the deletion', 'WITH held AS');
  commit();
  await deletion;
  assert.deepEqual(await writing, []);
  assert.equal(await vectorOf(store, 'm1'), null, 'no vector carries the forgotten words');
});
