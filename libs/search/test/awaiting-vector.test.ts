import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHashEmbedder } from '@memstream/embedding';
import { createLogger } from '@memstream/logging';
import { searchMemories, type QueryEmbedder } from '@memstream/search';
import {
  appendMessages,
  indexMessages,
  migrate,
  openPglite,
  type NewMessage,
  type Queryable,
  type Store,
} from '@memstream/store';
import { migratedStore } from '../../../test/helpers/migrated-store.js';

const GROUP = 'harbour';
const TURNS = 40;
const embedder = createHashEmbedder({ dimension: 256 });
const queries: QueryEmbedder = embedder;

/** Near-identical turns: only the ticket number tells them apart, so every older turn is a close vector match. */
const textOf = (i: number) => `the harbour opens at nine, ticket ${i + 1}`;

/** Both stores hybrid runs on, migrated. */
const backends: Array<[string, (t: TestContext) => Promise<Store>]> = [
  [
    'PGlite',
    async (t) => {
      const s = await openPglite();
      t.after(() => s.close());
      await migrate(s, createLogger({ service: 'test', level: 'silent' }));
      return s;
    },
  ],
  ['native PostgreSQL', migratedStore],
];

async function write(q: Queryable, i: number): Promise<void> {
  const message: NewMessage = {
    conversation_id: GROUP,
    message_id: `m${i}`,
    sender_id: 'u1',
    sender_name: 'User One',
    role: 'user',
    content: textOf(i),
    created_at: new Date(Date.UTC(2025, 0, 15, 10, i)),
    refer_list: [],
    metadata: {},
    source_api: 'evermemos',
  };
  await appendMessages(q, [{ message }]);
}

/** What the indexer writes for turn i: its vector, made from the speaker's name and its words as the indexer makes it. */
async function embed(q: Queryable, i: number): Promise<void> {
  const [vector] = await embedder.embed([`User One: ${textOf(i)}`], 'document');
  await indexMessages(q, embedder.model, [
    { groupKey: GROUP, conversationId: GROUP, messageId: `m${i}`, text: textOf(i), embedding: vector! },
  ]);
}

/** The first five hybrid hits for turn i's own words, by message id. */
async function top5(s: Store, i: number): Promise<string[]> {
  const hits = await searchMemories(s, queries, {
    query: textOf(i),
    method: 'hybrid',
    topK: 5,
    filters: { conversationId: GROUP, kinds: ['message', 'episodic_memory'] },
  });
  return hits.map((h) => h.message_ids[0]!);
}

for (const [name, open] of backends) {
  // The indexer two turns behind (a loaded machine): the fresh turn and the one before it have
  // only their keyword rows. Scored 0 on the vector side, the fresh turn (0.6 of its base, no
  // context from its neighbour) tied or lost to older turns lifted by vector alone (0.4, plus 0.2
  // lent by an embedded neighbour), and fell out of the first five.
  test(`${name}: each stored turn is in the first five hybrid hits for its words while the indexer is behind`, async (t) => {
    const s = await open(t);
    const missed: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      await write(s, i);
      if (i >= 2) await embed(s, i - 2);
      if (!(await top5(s, i)).includes(`m${i}`)) missed.push(i);
    }
    assert.deepEqual(missed, []);
  });
}

// The vector of the fresh turn commits while the search runs, just after its vector read: neither
// that read nor the vector table as read before it holds the vector, so the turn must still count
// as awaiting it. (Which turns await a vector, read after the vector search, saw the vector there
// and left the turn with a vector score of 0.) Native PostgreSQL only: PGlite runs one transaction
// at a time, so an indexer held mid-write would hold the search too.
test('native PostgreSQL: a turn whose vector commits between the search reads still ranks first', async (t) => {
  const s = await migratedStore(t);
  // ten turns: where, without the fix, the turn the indexer had not reached fell out of the first five
  const fresh = 9;
  for (let i = 0; i <= fresh; i++) await write(s, i);
  for (let i = 0; i < fresh - 1; i++) await embed(s, i);
  // the indexer's statement done, its transaction held open until the search has read the vectors
  let commit!: () => void;
  const mayCommit = new Promise<void>((resolve) => {
    commit = resolve;
  });
  let wrote!: () => void;
  const written = new Promise<void>((resolve) => {
    wrote = resolve;
  });
  const indexer = s.transaction(async (tx) => {
    await embed(tx, fresh);
    wrote();
    await mayCommit;
  });
  await written;

  let committed = false;
  const isVectorRead = (sql: string) => /FROM search_vectors WHERE/.test(sql) && sql.includes('<=>');
  // The store as the search sees it: every statement runs on it, and the held indexer commits as
  // soon as the vector search's statement has answered.
  const interleaved = new Proxy(s, {
    get(target, key, receiver) {
      if (key !== 'query') return Reflect.get(target, key, receiver);
      return async (sql: string, params?: unknown[]) => {
        const result = await target.query(sql, params);
        if (!committed && isVectorRead(sql)) {
          committed = true;
          commit();
          await indexer;
        }
        return result;
      };
    },
  }) as Store;

  const hits = await top5(interleaved, fresh);
  assert.ok(committed, 'the indexer committed during the search');
  assert.equal(hits[0], `m${fresh}`, `hits: ${hits.join(', ')}`);
});
