import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import {
  PgStore,
  openPglite,
  migrate,
  appendMessage,
  listMessages,
  type Store,
  type NewMessage,
} from '@memstream/store';
import { freshDatabase, waitFor } from '../../../test/helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });

const backends: Array<[string, (t: import('node:test').TestContext) => Promise<Store>]> = [
  ['PGlite', async () => openPglite()],
  [
    'native PostgreSQL',
    async (t) =>
      new PgStore({ connectionString: await freshDatabase(t), maxConnections: 4, statementTimeoutMs: 10_000, log }),
  ],
];

function message(overrides: Partial<NewMessage> = {}): NewMessage {
  return {
    conversation_id: 'g1',
    message_id: 'm1',
    sender_id: 'u1',
    sender_name: 'User One',
    role: 'user',
    content: 'hello',
    created_at: new Date('2025-01-15T02:00:00Z'),
    refer_list: [],
    metadata: {},
    source_api: 'evermemos',
    ...overrides,
  };
}

for (const [name, open] of backends) {
  test(`${name}: the vector extension answers a nearest-neighbour query`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    await store.exec('CREATE EXTENSION IF NOT EXISTS vector');
    await store.exec('CREATE TABLE items (id int PRIMARY KEY, embedding vector(3))');
    await store.query(`INSERT INTO items VALUES (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0.9,0.1,0]')`);
    await store.exec('CREATE INDEX ON items USING hnsw (embedding vector_cosine_ops)');
    const { rows } = await store.query<{ id: number; distance: number }>(
      `SELECT id, embedding <=> $1::vector AS distance FROM items ORDER BY embedding <=> $1::vector LIMIT 2`,
      ['[1,0.05,0]'],
    );
    assert.deepEqual(
      rows.map((r) => r.id),
      [1, 3],
    );
    assert.ok(rows[0]!.distance < rows[1]!.distance);
  });

  test(`${name}: migrations apply once and a second run applies nothing`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    const first = await migrate(store, log);
    assert.ok(first.length >= 1);
    assert.deepEqual(await migrate(store, log), []);
  });

  test(`${name}: a message stored twice leaves one row and sequence numbers have no gaps`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    await migrate(store, log);
    const a = await appendMessage(store, message());
    const again = await appendMessage(store, message({ content: 'changed on resend' }));
    const b = await appendMessage(store, message({ message_id: 'm2' }));
    assert.equal(a.duplicate, false);
    assert.equal(again.duplicate, true);
    assert.equal(again.message.content, 'hello');
    assert.deepEqual([a.message.seq, b.message.seq], [0, 1]);
    const page = await listMessages(store, { conversationId: 'g1', limit: 10, offset: 0, order: 'oldest-first' });
    assert.equal(page.total, 2);
    assert.equal(typeof page.items[0]!.seq, 'number');
  });

  test(`${name}: concurrent writers of one conversation get distinct, gapless sequence numbers`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    await migrate(store, log);
    const ids = Array.from({ length: 20 }, (_, i) => `c${i}`);
    // each id is sent twice at once, as a redelivery racing the original would be
    await Promise.all([...ids, ...ids].map((id) => appendMessage(store, message({ message_id: id }))));
    const page = await listMessages(store, { conversationId: 'g1', limit: 100, offset: 0, order: 'oldest-first' });
    assert.equal(page.total, 20);
    assert.deepEqual(
      page.items.map((m) => m.seq).sort((x, y) => x - y),
      Array.from({ length: 20 }, (_, i) => i),
    );
  });
}

test("native PostgreSQL: the loser of a race to store the same message is tried again and finds the winner's row", async (t) => {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 4,
    statementTimeoutMs: 10_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  await appendMessage(store, message({ message_id: 'before' }));
  // Both copies take their statement's snapshot (no 'twin' yet) and then queue on the
  // conversation's lock; released, the first stores it and the second breaks the unique key.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const holding = new Promise<void>((resolve) => (locked = resolve));
  const holder = store.transaction(async (tx) => {
    await tx.query('SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE', ['g1']);
    locked();
    await released;
  });
  await holding;
  const twins = [1, 2].map(() => appendMessage(store, message({ message_id: 'twin' })));
  await waitFor('both copies queued on the conversation', async () => {
    const { rows } = await store.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%WITH input AS%'`,
    );
    return rows[0]!.n === 2;
  });
  release();
  await holder;
  const results = await Promise.all(twins);
  assert.deepEqual(results.map((r) => r.duplicate).sort(), [false, true]);
  assert.deepEqual(
    results.map((r) => r.message.seq),
    [1, 1],
  );
  const page = await listMessages(store, { conversationId: 'g1', limit: 10, offset: 0, order: 'oldest-first' });
  assert.equal(page.total, 2);
});

test('native PostgreSQL: a connection the server ends during a transaction fails the transaction, not the process', async (t) => {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 2,
    statementTimeoutMs: 10_000,
    log,
  });
  t.after(() => store.close());
  const failed = await store
    .transaction(async (tx) => {
      const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // From the other connection: end this one while the transaction waits between statements.
      // typed: Citus adds a pg_terminate_backend(bigint, bigint), and an untyped $1 then matches both
      await store.query('SELECT pg_terminate_backend($1::int)', [rows[0]!.pid]);
      await waitFor(
        'the backend gone',
        async () =>
          (await store.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [rows[0]!.pid])).rows.length === 0,
      );
      await tx.query('SELECT 1');
    })
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  assert.ok(failed instanceof Error, 'the transaction failed');
  assert.deepEqual(
    (await store.query<{ one: number }>('SELECT 1 AS one')).rows,
    [{ one: 1 }],
    'the store goes on with a new connection',
  );
});
