import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appendMessages,
  queueMessagesWithoutVectors,
  staleVectors,
  turnEmbeddingInputs,
  writeMessageVectors,
  type Queryable,
} from '@memstream/store';
import { migratedStore } from './search-fixtures.js';
import { ctesReadAgain, explainRolledBack, nodesOf, recording, rowsRead } from './explain.js';

/** The (last) statement `run` sends, caught instead of run. */
async function caughtStatement(run: (q: Queryable) => Promise<unknown>) {
  let caught: { sql: string; params: readonly unknown[] } | undefined;
  const catcher: Queryable = {
    query: async (sql, params = []) => {
      caught = { sql, params };
      return { rows: [], rowCount: 0 };
    },
    exec: async () => undefined,
  };
  await run(catcher);
  return caught!;
}

/** The statement writeMessageVectors sends. */
const vectorStatement = (items: Parameters<typeof writeMessageVectors>[2]) =>
  caughtStatement((q) => writeMessageVectors(q, 'test-model', items));

// Every message stored since search became read-your-writes has its search row from the append:
// the vector write only adds the vector. Offered to the insert that fills a missing row, each message
// had its words parsed into a tsvector again and its key tried against the index, to be refused.
test('a vector write for messages that have their search rows parses no text and tries no insert of them', async (t) => {
  const store = await migratedStore(t);
  const messages = Array.from({ length: 8 }, (_, i) => ({
    conversation_id: 'c1',
    message_id: `m${i}`,
    sender_id: 'u1',
    sender_name: 'Ann',
    role: 'user' as const,
    content: `the harvest festival on day ${i}`,
    created_at: new Date(Date.UTC(2025, 0, 1, 0, 0, i)),
    refer_list: [],
    metadata: {},
    source_api: 'evermemos' as const,
  }));
  await appendMessages(
    store,
    messages.map((message) => ({ message })),
  );
  const { sql, params } = await vectorStatement(
    messages.map((m) => ({
      groupKey: m.conversation_id,
      conversationId: m.conversation_id,
      messageId: m.message_id,
      text: m.content,
      embedding: [0.6, 0.8, 0],
    })),
  );

  const { Plan: plan } = await explainRolledBack(store, sql, params);

  const inserts = [...nodesOf(plan)].filter((n) => n['Node Type'] === 'ModifyTable');
  const vectors = inserts.find((n) => n['Relation Name'] === 'search_vectors');
  assert.equal(vectors?.['Actual Rows'], 8, 'every message gets its vector');
  const fill = inserts.find((n) => n['Relation Name'] === 'search_items');
  assert.ok(fill, 'the statement can still fill a missing search row');
  assert.equal(fill['Conflicting Tuples'] ?? 0, 0, 'rows that exist were offered to the insert');
  const offered = (fill.Plans ?? []).reduce((sum, child) => sum + (child['Actual Rows'] ?? 0), 0);
  assert.equal(offered, 0, 'rows that exist had their text parsed for the insert');
  // The planner expects one row of every CTE here, so a join of two of them is a nested loop that
  // reads its inner CTE again for each outer row: the vectors' rows, as text, read n times each.
  assert.deepEqual(ctesReadAgain(plan), [], 'a CTE is read again for each row of another');
});

/**
 * SQL storing `turns` messages in each of four conversations c0-c3, a second apart, by three
 * senders; stored turn by turn across the four (ids interleave the conversations).
 */
const fourConversations = (turns: number) =>
  `INSERT INTO conversations (id, source_api, next_seq, group_key)
     SELECT 'c' || g, 'evermemos', ${turns}, 'c' || g FROM generate_series(0, 3) g;
   INSERT INTO messages (conversation_id, seq, message_id, sender_id, sender_name, role, content, created_at, source_api, group_key)
     SELECT 'c' || g, s, 'm' || s, 'u' || s % 3, 'Ann', 'user', 'the rollout plan ' || s,
            timestamptz '2025-01-01' + s * interval '1 second', 'evermemos', 'c' || g
       FROM generate_series(0, ${turns - 1}) s, generate_series(0, 3) g`;

/** The statement turnEmbeddingInputs sends. */
const turnInputsStatement = (keys: Parameters<typeof turnEmbeddingInputs>[1]) =>
  caughtStatement((q) => turnEmbeddingInputs(q, keys, true));

// The indexer reads each turn with the one before it: that turn is found by walking the
// conversation's key back from the turn, in its group (the shard column, so that Citus runs the
// walk beside the turn's shard), never by reading the conversation or the table.
test('reading turns to embed looks each up by key, and the turn before it by a walk back in its group', async (t) => {
  const store = await migratedStore(t);
  await store.exec(fourConversations(10_000));
  await store.query('VACUUM ANALYZE messages');
  const keys = Array.from({ length: 50 }, (_, i) => ({ conversationId: `c${i % 4}`, messageId: `m${5000 + i}` }));
  const { sql, params } = await turnInputsStatement(keys);

  const nodes = [...nodesOf((await explainRolledBack(store, sql, params)).Plan)];

  // each partition of the partitioned layout is a node of its own: what they read adds up
  const scans = nodes.filter((n) => n['Relation Name']?.startsWith('messages'));
  const read = rowsRead(scans);
  assert.ok(read <= 2 * keys.length, `read ${read} rows for ${keys.length} turns and the turns before them`);
  const walks = scans.filter((n) => /seq < m\.seq/.test(n['Index Cond'] ?? ''));
  assert.ok(walks.length > 0, "the turn before is found by a walk back its conversation's key");
  for (const walk of walks)
    assert.match(walk['Index Cond']!, /group_key = m\.group_key/, "the walk is keyed by the turn's group");
  assert.equal(
    walks.reduce((sum, n) => sum + (n['Actual Loops'] ?? 0), 0),
    keys.length,
    'one walk a turn',
  );
});

// The indexer's sweep walks the stored messages in id order and queues those with a search row and
// no vector. It reads the window, then probes search_items and search_vectors by each message's key
// in its group: neither table is read whole, however large, and the walk stops at the first
// message too recent to be settled.
test("the sweep's walk queues settled messages without a vector by their keys, and stops at a recent one", async (t) => {
  const store = await migratedStore(t);
  await store.exec(
    `${fourConversations(5_000)};
     INSERT INTO search_items (group_key, kind, item_id, conversation_id, user_id, content, occurred_at, message_ids, tsv)
       SELECT group_key, 'message', id::text, conversation_id, sender_id, content, created_at, ARRAY[message_id], to_tsvector('english', content)
         FROM messages WHERE seq % 100 <> 7;
     INSERT INTO search_vectors (group_key, kind, item_id, conversation_id, user_id, occurred_at, embedding, embedding_model)
       SELECT group_key, kind, item_id, conversation_id, user_id, occurred_at, '[1,0,0]', 'm'
         FROM search_items WHERE item_id::int8 % 50 <> 3;
     UPDATE messages SET stored_at = now() + interval '1 hour' WHERE id = (SELECT min(id) + 300 FROM messages);
     ANALYZE messages; ANALYZE search_items; ANALYZE search_vectors`,
  );
  const { rows: ids } = await store.query<{ first: string; recent: string }>(
    `SELECT (min(id) - 1)::text AS first, (min(id) + 300)::text AS recent FROM messages`,
  );
  const { first, recent } = ids[0]!;
  const expected = await store.query<{ item_id: string }>(
    `SELECT s.item_id FROM search_items s LEFT JOIN search_vectors v USING (group_key, kind, item_id)
      WHERE v.item_id IS NULL AND s.item_id::int8 < $1::int8 ORDER BY s.item_id::int8`,
    [recent],
  );
  assert.ok(expected.rows.length > 0, 'the window holds messages without vectors');

  // the statements as sent, then the queueing one again under EXPLAIN ANALYZE
  const { queryable, sent } = recording(store);
  const step = await queueMessagesWithoutVectors(queryable, first, 1000, 0);
  assert.equal(step.next, String(Number(recent) - 1), 'the walk stops before the recent message');
  assert.equal(step.queued, expected.rows.length);
  const queued = await store.query<{ item_id: string }>(`SELECT item_id FROM search_unembedded ORDER BY item_id::int8`);
  assert.deepEqual(
    queued.rows.map((r) => r.item_id),
    expected.rows.map((r) => r.item_id),
  );

  await store.query('DELETE FROM search_unembedded');
  const insert = sent.find((s) => /INSERT INTO search_unembedded/.test(s.sql))!;
  const nodes = [...nodesOf((await explainRolledBack(store, insert.sql, insert.params)).Plan)];
  for (const table of ['search_items', 'search_vectors']) {
    const scans = nodes.filter((n) => n['Relation Name']?.startsWith(table));
    assert.ok(scans.length > 0, `${table} is probed`);
    for (const scan of scans) {
      assert.match(scan['Node Type'] ?? '', /Index/, `${table} read by ${scan['Node Type']}`);
      assert.ok((scan['Actual Rows'] ?? 0) <= 1, `${table}: one row a probe, not ${scan['Actual Rows']}`);
    }
  }
});

// The re-embedding backlog (vectors of another model than the indexer's) is asked for at every
// indexer start and then once per small round until it is empty. Each ask reads about the rows it
// returns from the model index, however many vectors of the current model there are; it read the
// whole table ("embedding_model <> model" has no index range) and sorted it.
test('the re-embedding backlog is read from the model index: each model oldest first, the queued left out', async (t) => {
  const store = await migratedStore(t);
  await store.exec(
    `${fourConversations(5_000)};
     INSERT INTO search_items (group_key, kind, item_id, conversation_id, user_id, content, occurred_at, message_ids, tsv)
       SELECT group_key, 'message', id::text, conversation_id, sender_id, content, created_at, ARRAY[message_id], to_tsvector('english', content)
         FROM messages;
     -- 20,000 vectors: all of the current model 'm2' but eight, four each of a model sorting
     -- before it and one after; indexing times run against the ids, the later model's a day on
     INSERT INTO search_vectors (group_key, kind, item_id, conversation_id, user_id, occurred_at, embedding, embedding_model, indexed_at)
       SELECT group_key, kind, item_id, conversation_id, user_id, occurred_at, '[1,0,0]',
              CASE WHEN item_id::int8 % 5000 = 11 THEN 'm1' WHEN item_id::int8 % 5000 = 12 THEN 'm3' ELSE 'm2' END,
              timestamptz '2025-06-01' - item_id::int8 * interval '1 second'
                + CASE WHEN item_id::int8 % 5000 = 12 THEN interval '1 day' ELSE interval '0' END
         FROM search_items;
     ANALYZE search_items; ANALYZE search_vectors`,
  );
  const stale = await store.query<{ item_id: string; embedding_model: string }>(
    `SELECT item_id, embedding_model FROM search_vectors WHERE embedding_model <> 'm2' ORDER BY embedding_model, indexed_at`,
  );
  assert.equal(stale.rows.length, 8);
  const [queuedOne] = stale.rows;
  await store.query(
    `INSERT INTO search_unembedded (group_key, kind, item_id) SELECT group_key, kind, item_id FROM search_vectors WHERE item_id = $1`,
    [queuedOne!.item_id],
  );

  const backlog = await staleVectors(store, 'm2', 5);
  assert.deepEqual(
    backlog.map((b) => b.item_id),
    stale.rows.slice(1, 6).map((r) => r.item_id),
    "each model's oldest first, after the queued item",
  );
  assert.ok(backlog.every((b) => b.kind === 'message' && b.content.startsWith('the rollout plan')));
  const { sql, params } = await caughtStatement((q) => staleVectors(q, 'm2', 64));
  const nodes = [...nodesOf((await explainRolledBack(store, sql, params)).Plan)];
  const scans = nodes.filter((n) => n['Relation Name']?.startsWith('search_vectors'));
  assert.ok(scans.length > 0, 'search_vectors is read');
  const read = rowsRead(scans);
  assert.ok(read <= 100, `read ${read} vectors of 20,000 for a backlog of 7`);
});
