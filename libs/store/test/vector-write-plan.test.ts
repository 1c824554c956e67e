import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendMessages, writeMessageVectors, type Queryable } from '@memstream/store';
import { migratedStore } from './search-fixtures.js';
import { explainRolledBack, nodesOf } from './explain.js';

/** The statement writeMessageVectors sends, caught instead of run. */
async function vectorStatement(items: Parameters<typeof writeMessageVectors>[2]) {
  let caught: { sql: string; params: readonly unknown[] } | undefined;
  const catcher: Queryable = {
    query: async (sql, params = []) => {
      caught = { sql, params };
      return { rows: [], rowCount: 0 };
    },
    exec: async () => undefined,
  };
  await writeMessageVectors(catcher, 'test-model', items);
  return caught!;
}

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
});
