import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendMessages, findRequestOutcome, type NewMessage } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';

const message = (messageId: string, content: string): NewMessage => ({
  conversation_id: 'c-retry',
  message_id: messageId,
  sender_id: 'ann',
  sender_name: 'ann',
  role: 'user',
  content,
  created_at: new Date(Date.UTC(2025, 0, 15, 10)),
  refer_list: [],
  metadata: {},
  source_api: 'evermemos',
});

// A producer that resends a message at once (a new event id, the same message id) can put the
// message and its retry in one flush: the batch stores it once and answers the retry as its
// duplicate, with the number the first copy took, instead of failing as a whole.
test('a message and its retry in one batch: stored once, the retry answered as a duplicate of it', async (t) => {
  const store = await migratedPglite();
  t.after(() => store.close());
  const results = await appendMessages(store, [
    { message: message('m1', 'first'), requestId: 'ev-1' },
    { message: message('m2', 'second'), requestId: 'ev-2' },
    { message: message('m1', 'first, resent'), requestId: 'ev-1-retry' },
  ]);
  assert.deepEqual(
    results.map((r) => [r.message.message_id, r.message.seq, r.message.content, r.duplicate]),
    [
      ['m1', 0, 'first', false],
      ['m2', 1, 'second', false],
      ['m1', 0, 'first', true],
    ],
  );
  const { rows } = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM messages');
  assert.equal(rows[0]!.n, 2);
  const retry = await findRequestOutcome(store, 'ev-1-retry');
  assert.equal(retry?.duplicate, true);
  assert.deepEqual(retry?.result, { sequence: 0 });
});
