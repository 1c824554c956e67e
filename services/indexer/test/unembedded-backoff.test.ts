import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHashEmbedder } from '@memstream/embedding';
import { Indexer } from '@memstream/indexer';
import { createLogger } from '@memstream/logging';
import { queueMessagesToEmbed, type Store } from '@memstream/store';
import { refusing } from './refusing-embedder.js';
import { storedMessages } from './stored-messages.js';

const log = createLogger({ service: 'test', level: 'silent' });
const MINUTE = 60_000;

const vectorsOf = async (store: Store) =>
  (
    await store.query<{ message_id: string }>(
      `SELECT s.message_ids[1] AS message_id FROM search_vectors v JOIN search_items s USING (kind, item_id)
       WHERE v.kind = 'message' ORDER BY 1`,
    )
  ).rows.map((r) => r.message_id);

const queueOf = async (store: Store) =>
  (
    await store.query<{ message_id: string; attempts: number; wait_ms: number }>(
      `SELECT s.message_ids[1] AS message_id, u.attempts,
              extract(epoch FROM u.not_before - now()) * 1000 AS wait_ms
       FROM search_unembedded u JOIN search_items s USING (kind, item_id) ORDER BY 1`,
    )
  ).rows.map((r) => ({ ...r, wait_ms: Number(r.wait_ms) }));

test('a queued item that fails every time is backed off, and the items queued beside it are embedded', async (t) => {
  const { store, messages } = await storedMessages(t, [
    'The cabin key is under the mat.',
    'This one the model refuses: poison.',
    'Bring the blue canoe.',
    'Dinner is at seven.',
  ]);
  const keys = messages.map((m) => ({ conversationId: m.conversation_id, messageId: m.message_id }));
  assert.equal(await queueMessagesToEmbed(store, keys), 4);
  const embedder = refusing('poison');
  const indexer = new Indexer(store, embedder, 100, log, { backoff: { firstMs: MINUTE, maxMs: 10 * MINUTE } });

  await indexer.sweep();
  assert.deepEqual(await vectorsOf(store), ['m0', 'm2', 'm3'], 'the batch failed, each of the others alone did not');
  const [left] = await queueOf(store);
  assert.equal(left?.message_id, 'm1');
  assert.equal(left.attempts, 1);
  assert.ok(left.wait_ms > 0.9 * MINUTE && left.wait_ms <= MINUTE, `waits the first backoff (${left.wait_ms} ms)`);

  const tried = embedder.texts.length;
  assert.equal(await indexer.sweep(), 0, 'nothing is due');
  assert.equal(embedder.texts.length, tried, 'the failing item is not tried again before its time');

  // Due again, it fails again and waits twice as long; after many failures, the cap.
  await store.query(`UPDATE search_unembedded SET not_before = now() - interval '1 second'`);
  await indexer.sweep();
  assert.deepEqual(
    (await queueOf(store)).map((r) => [r.attempts, r.wait_ms > 1.9 * MINUTE && r.wait_ms <= 2 * MINUTE]),
    [[2, true]],
  );
  await store.query(`UPDATE search_unembedded SET not_before = now() - interval '1 second', attempts = 500`);
  await indexer.sweep();
  const [capped] = await queueOf(store);
  assert.ok(capped!.wait_ms > 9.9 * MINUTE && capped!.wait_ms <= 10 * MINUTE, `capped (${capped!.wait_ms} ms)`);
});

test('the sweep queues a settled message whose vector never came, and leaves a recent one to its event', async (t) => {
  const { store, messages } = await storedMessages(t, ['Lost one.', 'Indexed one.', 'Lost too.', 'Just stored.']);
  const indexer = new Indexer(store, createHashEmbedder({ dimension: 16 }), 100, log, {
    backoff: { firstMs: MINUTE, maxMs: 10 * MINUTE },
    missingVectorAfterMs: 10 * MINUTE,
  });
  await indexer.indexMessages([messages[1]!]);
  // m0..m2 were stored an hour ago (m0 and m2 their indexing lost); m3 a moment ago, its event in flight
  await store.query(`UPDATE messages SET stored_at = now() - interval '1 hour' WHERE message_id <> 'm3'`);

  await indexer.sweep();
  assert.deepEqual(await vectorsOf(store), ['m0', 'm1', 'm2']);
  assert.deepEqual(await queueOf(store), [], 'queued and embedded in the same sweep');

  // The walk stopped at m3: once settled without a vector, a later sweep finds it.
  await store.query(`UPDATE messages SET stored_at = now() - interval '1 hour'`);
  await indexer.sweep();
  assert.deepEqual(await vectorsOf(store), ['m0', 'm1', 'm2', 'm3']);
});
