import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHashEmbedder } from '@memstream/embedding';
import { Indexer } from '@memstream/indexer';
import { createLogger } from '@memstream/logging';
import { Slots } from '@memstream/runtime';
import { appendMessages, forgetMessages, type Queryable, type Store } from '@memstream/store';
import { storedMessages } from './stored-messages.js';

const log = createLogger({ service: 'test', level: 'silent' });

const stored = (t: TestContext, count: number) =>
  storedMessages(
    t,
    Array.from({ length: count }, (_, i) => `Message ${i} about the lake cabin.`),
  );

const rows = async (store: Store) =>
  (
    await store.query<{ item_id: string; embedding_model: string; dims: number }>(
      `SELECT item_id, embedding_model, vector_dims(embedding) AS dims FROM search_vectors WHERE kind = 'message' ORDER BY item_id`,
    )
  ).rows;

test('a stored message is indexed once with the current model, however often its event is delivered', async (t) => {
  const { store, messages } = await stored(t, 5);
  const embedder = createHashEmbedder({ dimension: 16 });
  const indexer = new Indexer(store, embedder, 100, log);
  await indexer.indexMessages(messages);
  await indexer.indexMessages(messages.slice(1, 3)); // a redelivered batch
  const indexed = await rows(store);
  assert.equal(indexed.length, 5);
  assert.ok(indexed.every((r) => r.embedding_model === embedder.model && Number(r.dims) === 16));
  const { rows: texts } = await store.query<{ content: string }>(
    `SELECT content FROM search_items WHERE kind = 'message'`,
  );
  assert.ok(
    texts.every((r) => r.content.includes('lake cabin')),
    'indexed by what was said',
  );
});

test("a memory-service fork's message, stored under its root's group, gets its vector beside a chat's", async (t) => {
  const { store, messages } = await stored(t, 1);
  const [fork] = await appendMessages(store, [
    {
      message: {
        ...messages[0]!,
        conversation_id: 'fork',
        message_id: 'f0',
        created_at: new Date(messages[0]!.created_at),
        metadata: { ms: {} },
        source_api: 'memory-service',
        group_key: 'root',
      },
    },
  ]);
  await new Indexer(store, createHashEmbedder({ dimension: 16 }), 100, log).indexMessages([...messages, fork!.message]);
  const { rows: vectors } = await store.query<{ group_key: string; conversation_id: string }>(
    `SELECT group_key, conversation_id FROM search_vectors WHERE kind = 'message' ORDER BY group_key`,
  );
  assert.deepEqual(
    vectors.map((v) => [v.group_key, v.conversation_id]),
    [
      ['g', 'g'],
      ['root', 'fork'],
    ],
  );
});

test('a message deleted before its event reaches the indexer is not brought back into search', async (t) => {
  const { store, messages } = await stored(t, 3);
  await forgetMessages(store, { conversationId: 'g', messageId: 'm1' });
  await new Indexer(store, createHashEmbedder({ dimension: 16 }), 100, log).indexMessages(messages);
  const indexed = await rows(store);
  assert.equal(indexed.length, 2);
  const { rows: ids } = await store.query<{ message_ids: string[] }>(
    `SELECT message_ids FROM search_items WHERE kind = 'message'`,
  );
  assert.deepEqual(ids.flatMap((r) => r.message_ids).sort(), ['m0', 'm2']);
});

test('after a model change the sweep re-embeds every older vector in rounds, then stops looking', async (t) => {
  const { store, messages } = await stored(t, 7);
  await new Indexer(store, createHashEmbedder({ dimension: 16 }), 100, log).indexMessages(messages);
  const next = createHashEmbedder({ dimension: 24 });
  const indexer = new Indexer(store, next, 3, log); // three a round
  const rounds: number[] = [];
  for (let done = -1; done !== 0; ) rounds.push((done = await indexer.sweep()));
  assert.deepEqual(rounds, [3, 3, 1, 0]);
  const indexed = await rows(store);
  assert.ok(
    indexed.every((r) => r.embedding_model === next.model && Number(r.dims) === 24),
    'every vector is of the new model',
  );
});

/** The store, counting the statements that write search_vectors while they run: the most at once. */
function countingVectorWrites(store: Store): { store: Store; most: () => number } {
  let running = 0;
  let most = 0;
  const counted = (q: Queryable): Queryable['query'] =>
    (async (sql: string, params?: readonly unknown[]) => {
      const writes = /INSERT INTO search_vectors/.test(sql);
      if (writes) most = Math.max(most, ++running);
      try {
        return await q.query(sql, params);
      } finally {
        if (writes) running--;
      }
    }) as Queryable['query'];
  const wrapped: Store = {
    kind: store.kind,
    query: counted(store),
    exec: (sql) => store.exec(sql),
    transaction: (fn) => store.transaction((tx) => fn({ query: counted(tx), exec: (sql) => tx.exec(sql) })),
    ping: () => store.ping(),
    close: () => store.close(),
  };
  return { store: wrapped, most: () => most };
}

test('lanes handing the indexer batches at once run no more vector writes together than its writers', async (t) => {
  const { store, messages } = await stored(t, 24);
  const lanes = Array.from({ length: 8 }, (_, i) => messages.slice(i * 3, i * 3 + 3));
  const index = async (writers: number) => {
    const counting = countingVectorWrites(store);
    const indexer = new Indexer(
      counting.store,
      createHashEmbedder({ dimension: 16 }),
      100,
      log,
      undefined,
      undefined,
      new Slots(writers),
    );
    await Promise.all(lanes.map((batch) => indexer.indexMessages(batch)));
    return counting.most();
  };
  // the same calls with as many writers as lanes do run together: the count can tell them apart
  assert.ok((await index(8)) > 2);
  assert.equal(await index(2), 2);
  assert.equal(await index(1), 1);
  assert.equal((await rows(store)).length, 24, 'every message indexed once');
});
