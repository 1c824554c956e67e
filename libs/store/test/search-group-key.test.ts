import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  clearRetiredKeywordCounts,
  foldKeywordCounts,
  forgetMessages,
  keywordSearch,
  migrate,
  type NewMessage,
  type Queryable,
} from '@memstream/store';
import { migratedPgliteWithout } from '../../../test/helpers/migrated-pglite.js';
import { rowsWithout } from './catalog.js';
import { appendBefore0039, foldBefore0039, indexMemoryBefore0039 } from './search-before-0039.js';
import { chatMessage, countsDiffer, log } from './search-fixtures.js';

/** The six search tables, each row whole but for group_key (0039 adds it), in a stable order. */
const TABLES = {
  search_items: 'kind, item_id',
  search_vectors: 'kind, item_id',
  search_unembedded: 'kind, item_id',
  search_keyword_pending: 'kind, item_id',
  search_keyword_totals: 'conversation_id, kind, audience',
  search_keyword_frequencies: 'conversation_id, kind, audience, lexeme',
} as const;

const rowsOf = (q: Queryable) => rowsWithout(q, TABLES, 'group_key');

/** Per table, each conversation's groups as its rows hold them (the queue's through its item). */
async function groupsOf(q: Queryable): Promise<Record<string, Record<string, string[]>>> {
  const out: Record<string, Record<string, string[]>> = {};
  for (const table of Object.keys(TABLES)) {
    const from =
      table === 'search_unembedded'
        ? 'search_unembedded u JOIN search_items s USING (group_key, kind, item_id)'
        : `${table} s`;
    const { rows } = await q.query<{ c: string; g: string[] }>(
      `SELECT s.conversation_id AS c, array_agg(DISTINCT s.group_key ORDER BY s.group_key) AS g FROM ${from} GROUP BY 1 ORDER BY 1`,
    );
    out[table] = Object.fromEntries(rows.map((r) => [r.c, r.g]));
  }
  return out;
}

async function keysOf(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ def: string }>(
    `SELECT conrelid::regclass::text || ' ' || pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE contype IN ('p', 'f', 'u') AND conrelid::regclass::text = ANY($1::text[])
     UNION ALL
     SELECT indexdef FROM pg_indexes WHERE indexname = 'search_keyword_frequencies_key'
     ORDER BY 1`,
    [Object.keys(TABLES)],
  );
  return rows.map((r) => r.def);
}

const said = (conversation: string, id: string, content: string, source: NewMessage['source_api']): NewMessage => ({
  ...chatMessage(conversation, id, content),
  source_api: source,
});

test('migration 0039 keeps every search row and count, gives each its group, and the writers count on without triggers', async () => {
  // the schema main leaves: every migration but 0039, and 0045, which sums the counts 0039 keeps
  // (written here by the writers before it, which kept no sums)
  const store = await migratedPgliteWithout(39, [45]);
  try {
    // a memory-service root with a fork in its group, two chats of their own, and a message whose
    // conversation row is gone (messages keep no key to it): its own group
    await store.query(
      `INSERT INTO conversations (id, source_api, group_id, group_key) VALUES
         ('root', 'memory-service', NULL, 'root'), ('fork', 'memory-service', 'root', 'root')`,
    );
    await appendBefore0039(store, [
      said('root', 'r0', 'the quokka naps in the garden', 'memory-service'),
      said('fork', 'f0', 'the quokka found the kitchen garden', 'memory-service'),
      said('chat-a', 'a0', 'garden tomato harvest', 'evermemos'),
      said('chat-a', 'a1', 'tomato piano lesson', 'evermemos'),
      said('gone', 'g0', 'a garden left behind', 'evermemos'),
      {
        ...said('fork', 'f1', 'a note on the quokka garden', 'memory-service'),
        role: 'assistant',
        metadata: { ms: { channel: 'memory', visibility: 'agent', client_id: 'bot' } },
      },
    ]);
    await foldBefore0039(store);
    // and some still pending, a memory rewritten (the update trigger), one message deleted (the delete trigger)
    await appendBefore0039(store, [
      said('chat-a', 'a2', 'flight to lisbon garden', 'evermemos'),
      said('fork', 'f2', 'more quokka words', 'memory-service'),
      said('chat-b', 'b0', 'coffee marathon', 'evermemos'),
    ]);
    await indexMemoryBefore0039(store, {
      id: 'mem-a',
      conversation: 'chat-a',
      text: 'alice grows tomato',
      vector: '[1,0,0]',
    });
    await indexMemoryBefore0039(store, {
      id: 'mem-f',
      conversation: 'fork',
      text: 'dora and the quokka',
      vector: '[0,1,0]',
    });
    await indexMemoryBefore0039(store, {
      id: 'mem-a',
      conversation: 'chat-a',
      text: 'alice grows a garden',
      vector: '[1,0,0]',
    });
    await store.query(
      `DELETE FROM search_items WHERE kind = 'message' AND item_id = (SELECT id::text FROM messages WHERE message_id = 'a1')`,
    );
    await store.query(`DELETE FROM conversations WHERE id = 'gone'`);
    // vectors as the indexer wrote them, and chat-b's on the sweep's queue
    await store.query(
      `INSERT INTO search_vectors (kind, item_id, conversation_id, user_id, occurred_at, audience, embedding, embedding_model)
       SELECT kind, item_id, conversation_id, user_id, occurred_at, audience, '[0,0,1]', 'test-model'
         FROM search_items WHERE kind = 'message' AND conversation_id <> 'chat-b'`,
    );
    await store.query(
      `INSERT INTO search_unembedded (kind, item_id) SELECT kind, item_id FROM search_items WHERE conversation_id = 'chat-b'`,
    );
    const before = await rowsOf(store);
    assert.ok(before.search_keyword_pending!.length > 0 && before.search_keyword_frequencies!.length > 0);

    assert.deepEqual(await migrate(store, log), [39, 45]);

    assert.deepEqual(await rowsOf(store), before, 'no row lost or changed');
    const own = { 'chat-a': ['chat-a'], 'chat-b': ['chat-b'], fork: ['root'], gone: ['gone'], root: ['root'] };
    const groups = await groupsOf(store);
    assert.deepEqual(groups.search_items, own);
    const { 'chat-b': _pendingOnly, ...folded } = own;
    assert.deepEqual(groups.search_keyword_totals, folded);
    assert.deepEqual(groups.search_keyword_frequencies, folded);
    assert.deepEqual(groups.search_keyword_pending, { 'chat-a': ['chat-a'], 'chat-b': ['chat-b'], fork: ['root'] });
    assert.deepEqual(groups.search_vectors, { 'chat-a': ['chat-a'], fork: ['root'], gone: ['gone'], root: ['root'] });
    assert.deepEqual(groups.search_unembedded, { 'chat-b': ['chat-b'] });
    // the writers before 0039 counted per conversation and lexeme too, which nothing keeps since
    // 0048: the governance worker clears what they left
    assert.ok((await clearRetiredKeywordCounts(store)) > 0);
    assert.deepEqual(await countsDiffer(store), [], 'the counts still equal a recount');
    assert.deepEqual(await keysOf(store), [
      'CREATE UNIQUE INDEX search_keyword_frequencies_key ON public.search_keyword_frequencies USING btree (group_key, conversation_id, kind, audience, md5(lexeme))',
      'search_items PRIMARY KEY (group_key, kind, item_id)',
      'search_keyword_pending PRIMARY KEY (group_key, kind, item_id)',
      'search_keyword_totals PRIMARY KEY (group_key, conversation_id, kind, audience)',
      'search_unembedded FOREIGN KEY (group_key, kind, item_id) REFERENCES search_items(group_key, kind, item_id) ON DELETE CASCADE',
      'search_unembedded PRIMARY KEY (group_key, kind, item_id)',
      'search_vectors FOREIGN KEY (group_key, kind, item_id) REFERENCES search_items(group_key, kind, item_id) ON DELETE CASCADE',
      'search_vectors PRIMARY KEY (group_key, kind, item_id)',
    ]);
    const { rows: triggers } = await store.query(
      `SELECT tgname FROM pg_trigger WHERE tgrelid = 'search_items'::regclass AND NOT tgisinternal`,
    );
    assert.deepEqual(triggers, [], 'no trigger is left on search_items');

    // today's writers go on from the migrated rows: the fold, a deletion, a search
    await foldKeywordCounts(store, 1_000);
    assert.deepEqual(await countsDiffer(store), [], 'folded');
    await forgetMessages(store, { conversationId: 'fork', messageId: 'f0' });
    assert.deepEqual(await countsDiffer(store), [], 'a migrated message forgotten');
    const hits = await keywordSearch(store, 'garden', { kinds: ['message'], conversationId: 'chat-a' }, 10);
    assert.deepEqual(hits.map((h) => h.message_ids[0]).sort(), ['a0', 'a2']);
  } finally {
    await store.close();
  }
});
