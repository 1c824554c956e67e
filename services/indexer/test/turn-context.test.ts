import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHashEmbedder, withTurnContext, type Embedder } from '@memstream/embedding';
import { Indexer } from '@memstream/indexer';
import { createLogger } from '@memstream/logging';
import type { CanonicalMessage } from '@memstream/schemas';
import { PgStore, appendMessages, forgetMessages, migrate, type NewMessage, type Store } from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });
const minute = 60_000;

interface Turn {
  readonly id: string;
  readonly name: string;
  readonly said: string;
  readonly atMinute: number;
  readonly metadata?: Record<string, unknown>;
}

async function stored(t: TestContext, turns: readonly Turn[]): Promise<{ store: Store; messages: CanonicalMessage[] }> {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 4,
    statementTimeoutMs: 10_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  const results = await appendMessages(
    store,
    turns.map((turn): { message: NewMessage } => ({
      message: {
        conversation_id: 'g',
        message_id: turn.id,
        sender_id: turn.name.toLowerCase(),
        sender_name: turn.name,
        role: 'user',
        content: turn.said,
        created_at: new Date(Date.UTC(2025, 0, 15, 10) + turn.atMinute * minute),
        refer_list: [],
        metadata: turn.metadata ?? {},
        source_api: 'evermemos',
      },
    })),
  );
  return { store, messages: results.map((r) => r.message) };
}

interface Row {
  message_id: string;
  item_id: string;
  embedding: string | null;
  embedding_model: string | null;
  context_item_id: string | null;
}

async function rowOf(store: Store, messageId: string): Promise<Row> {
  const { rows } = await store.query<Row>(
    `SELECT s.message_ids[1] AS message_id, s.item_id, v.embedding::text AS embedding, v.embedding_model, v.context_item_id
       FROM search_items s LEFT JOIN search_vectors v ON v.kind = s.kind AND v.item_id = s.item_id
      WHERE s.kind = 'message' AND s.message_ids[1] = $1`,
    [messageId],
  );
  assert.equal(rows.length, 1, `one search row for ${messageId}`);
  return rows[0]!;
}

/** Whether the stored vector is the embedding of `text` (pgvector keeps float4, written exactly). */
async function assertEmbeds(embedder: Embedder, row: Row, text: string, what: string): Promise<void> {
  assert.ok(row.embedding, `${what}: ${row.message_id} has a vector`);
  const stored = JSON.parse(row.embedding) as number[];
  const [expected] = await embedder.embed([text], 'document');
  assert.deepEqual(
    stored.map((x) => Math.fround(x)),
    Array.from(expected!),
    what,
  );
}

const conversation: Turn[] = [
  { id: 'm0', name: 'Alice', said: 'We adopted a puppy called Biscuit.', atMinute: 0 },
  { id: 'm1', name: 'Bob', said: 'Was the wombatword shelter far away?', atMinute: 1 },
  { id: 'm2', name: 'Alice', said: 'Yes, a long drive.', atMinute: 2 },
];

test('forgetting a turn takes its words out of the next turn vector at once, and the sweep embeds that turn after its new predecessor', async (t) => {
  const { store, messages } = await stored(t, conversation);
  const embedder = withTurnContext(createHashEmbedder({ dimension: 64 }));
  const indexer = new Indexer(store, embedder, 100, log);
  await indexer.indexMessages(messages);
  await assertEmbeds(
    embedder,
    await rowOf(store, 'm2'),
    'Bob: Was the wombatword shelter far away?\nAlice: Yes, a long drive.',
    'embedded after the turn before it',
  );
  await assertEmbeds(
    embedder,
    await rowOf(store, 'm0'),
    'Alice: We adopted a puppy called Biscuit.',
    'the first turn alone',
  );

  await forgetMessages(store, { conversationId: 'g', messageId: 'm1' });
  const cleared = await rowOf(store, 'm2');
  assert.equal(cleared.embedding, null, 'the vector holding the forgotten words is gone with them');
  assert.equal(cleared.context_item_id, null);

  await indexer.sweep();
  const m2 = await rowOf(store, 'm2');
  await assertEmbeds(
    embedder,
    m2,
    'Alice: We adopted a puppy called Biscuit.\nAlice: Yes, a long drive.',
    'embedded again after the turn now before it',
  );
  assert.equal(m2.embedding_model, embedder.model);
  assert.equal(m2.context_item_id, (await rowOf(store, 'm0')).item_id);
});

test('a turn is embedded after the turn before it only when that turn is within four hours and as readable', async (t) => {
  const { store, messages } = await stored(t, [
    {
      id: 'a0',
      name: 'Agent',
      said: 'Private note for agents only.',
      atMinute: 0,
      metadata: { ms: { visibility: 'agent' } },
    },
    { id: 'a1', name: 'Alice', said: 'Morning, everyone.', atMinute: 1 },
    { id: 'a2', name: 'Bob', said: 'Evening already.', atMinute: 1 + 5 * 60 },
    { id: 'a3', name: 'Alice', said: 'Time flies.', atMinute: 2 + 5 * 60 },
  ]);
  const embedder = withTurnContext(createHashEmbedder({ dimension: 64 }));
  await new Indexer(store, embedder, 100, log).indexMessages(messages);
  await assertEmbeds(embedder, await rowOf(store, 'a1'), 'Alice: Morning, everyone.', 'not after an agents-only turn');
  await assertEmbeds(embedder, await rowOf(store, 'a2'), 'Bob: Evening already.', 'not after a turn five hours before');
  await assertEmbeds(
    embedder,
    await rowOf(store, 'a3'),
    'Bob: Evening already.\nAlice: Time flies.',
    'after the turn before',
  );
  await assertEmbeds(
    embedder,
    await rowOf(store, 'a0'),
    'Agent: Private note for agents only.',
    'agents-only turn alone (nothing readable before it)',
  );
});

test('switching the turn context on or off re-embeds every message in the background, under its own model id', async (t) => {
  const { store, messages } = await stored(t, conversation);
  const alone = createHashEmbedder({ dimension: 64 });
  const withContext = withTurnContext(alone);
  assert.notEqual(withContext.model, alone.model);
  await new Indexer(store, alone, 100, log).indexMessages(messages);

  const on = new Indexer(store, withContext, 100, log);
  for (let done = -1; done !== 0; ) done = await on.sweep();
  await assertEmbeds(
    withContext,
    await rowOf(store, 'm1'),
    'Alice: We adopted a puppy called Biscuit.\nBob: Was the wombatword shelter far away?',
    'switched on',
  );
  assert.equal((await rowOf(store, 'm1')).embedding_model, withContext.model);

  const off = new Indexer(store, alone, 100, log);
  for (let done = -1; done !== 0; ) done = await off.sweep();
  const m1 = await rowOf(store, 'm1');
  await assertEmbeds(alone, m1, 'Bob: Was the wombatword shelter far away?', 'switched off');
  assert.equal(m1.embedding_model, alone.model);
  assert.equal(m1.context_item_id, null);
});
