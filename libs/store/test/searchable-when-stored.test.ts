import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appendMessages,
  forgetMessages,
  indexMessages,
  keywordSearch,
  migrate,
  type NewMessage,
  type Store,
} from '@memstream/store';
import { backends, countsDiffer, log } from './search-fixtures.js';

const message = (i: number, content: string, metadata: Record<string, unknown> = {}): NewMessage => ({
  conversation_id: `c${i % 2}`,
  message_id: `m${i}`,
  sender_id: `u${i % 3}`,
  sender_name: i % 3 === 0 ? '' : `Person ${i % 3}`,
  role: 'user',
  content,
  created_at: new Date(Date.UTC(2025, 0, 15, 10, i)),
  refer_list: [],
  metadata,
  source_api: 'memory-service',
});

const MESSAGES = [
  message(0, 'The zephyr blew over the harbour'),
  message(1, 'Quokka sightings near the ferry'),
  message(2, 'A secret for agents: the vault code is marmalade', { ms: { channel: 'history', visibility: 'agent' } }),
  message(3, "The bot's own note about marmalade", { ms: { channel: 'memory', client_id: 'bot' } }),
  message(4, '   '),
  message(5, 'Zephyr and quokka together at last'),
];

const rows = async (store: Store) =>
  (
    await store.query<{
      conversation_id: string;
      message_id: string;
      content: string;
      audience: string | null;
      message_audience: string | null;
      user_id: string;
      has_vector: boolean;
    }>(
      `SELECT m.conversation_id, m.message_id, s.content, s.audience, m.audience AS message_audience, s.user_id,
              EXISTS (SELECT 1 FROM search_vectors v WHERE v.kind = s.kind AND v.item_id = s.item_id) AS has_vector
         FROM search_items s JOIN messages m ON m.id::text = s.item_id WHERE s.kind = 'message' ORDER BY m.message_id`,
    )
  ).rows;

for (const [name, open] of backends) {
  test(`${name}: a message is keyword-searchable in the statement that stores it, and its vector comes later without touching the counts`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    await migrate(store, log);
    await appendMessages(
      store,
      MESSAGES.map((m) => ({ message: m })),
    );

    // no indexer has run: each message with words has its keyword row, with its audience and speaker
    const stored = await rows(store);
    assert.deepEqual(
      stored.map((r) => r.content),
      [
        'u0: The zephyr blew over the harbour',
        'Person 1: Quokka sightings near the ferry',
        'Person 2: A secret for agents: the vault code is marmalade',
        "u0: The bot's own note about marmalade",
        'Person 2: Zephyr and quokka together at last',
      ],
      'the speaker, then what was said; a message of blanks has no row',
    );
    assert.ok(stored.every((r) => r.audience === r.message_audience && !r.has_vector));
    assert.deepEqual(
      stored.map((r) => r.audience),
      [null, null, 'agents', 'agent:bot', null],
    );
    assert.deepEqual(await countsDiffer(store), [], 'the keyword counts include the new rows');
    const found = async (query: string, audiences?: string[]) =>
      (await keywordSearch(store, query, { kinds: ['message'], audiences }, 10)).map((h) => h.message_ids[0]).sort();
    assert.deepEqual(await found('zephyr'), ['m0', 'm5']);
    assert.deepEqual(await found('quokka', []), ['m1', 'm5']);
    assert.deepEqual(await found('marmalade', []), [], 'a person finds no agent-only message');
    assert.deepEqual(await found('marmalade', ['agents']), ['m2'], "another agent finds no bot's memory");
    assert.deepEqual(await found('marmalade'), ['m2', 'm3']);

    // a resend stores nothing and writes no second row
    await appendMessages(store, [{ message: MESSAGES[0]! }]);
    assert.equal((await rows(store)).length, 5);

    // the indexer's vectors, delivered twice, change only the vectors
    const counts = async () =>
      (await store.query('SELECT * FROM search_keyword_overall_frequencies ORDER BY 1, 2, 3')).rows.concat(
        (await store.query('SELECT * FROM search_keyword_totals ORDER BY 1, 2')).rows,
      );
    const before = await counts();
    // each search row's version: an UPDATE would write a new one (migration 0025 keeps vectors apart)
    const versions = async () =>
      (await store.query('SELECT item_id, xmin::text AS v FROM search_items ORDER BY item_id')).rows;
    const written = await versions();
    const toIndex = stored.map((r, i) => ({
      groupKey: r.conversation_id,
      conversationId: r.conversation_id,
      messageId: r.message_id,
      text: r.content,
      embedding: [1, i, 0],
    }));
    await indexMessages(store, 'model-a', toIndex);
    await indexMessages(store, 'model-a', toIndex.slice(1, 3));
    const indexed = await rows(store);
    assert.ok(indexed.every((r) => r.has_vector));
    assert.deepEqual(
      indexed.map((r) => [r.content, r.audience]),
      stored.map((r) => [r.content, r.audience]),
    );
    assert.deepEqual(await counts(), before, 'adding vectors counts no word twice');
    assert.deepEqual(await countsDiffer(store), []);
    assert.deepEqual(await versions(), written, 'a vector is its own row: the search rows are not rewritten');

    // a deletion takes the rows, their vectors and their counts
    await forgetMessages(store, { conversationId: 'c1', messageId: 'm5' });
    assert.deepEqual(await found('zephyr'), ['m0']);
    assert.deepEqual(
      (
        await store.query(
          'SELECT v.item_id FROM search_vectors v WHERE v.item_id NOT IN (SELECT item_id FROM search_items)',
        )
      ).rows,
      [],
      'no vector outlives its row',
    );
    assert.equal((await rows(store)).length, 4);
    assert.deepEqual(await countsDiffer(store), []);
  });
}
