import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendMessages, type AppendItem } from '@memstream/store';
import { APPEND_SQL, appendParameters } from '../src/repositories/messages.js';
import { migratedStore } from './search-fixtures.js';
import { explainRolledBack, nodesOf } from './explain.js';

const items = (from: number, count: number, conversations: number): AppendItem[] =>
  Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return {
      requestId: `req-${i}`,
      message: {
        conversation_id: `c${i % conversations}`,
        message_id: `m${i}`,
        sender_id: `u${i % 7}`,
        sender_name: '',
        role: 'user',
        content: `message ${i} about the rollout plan and the load test`,
        created_at: new Date(Date.UTC(2025, 0, 1, 0, 0, i % 60)),
        refer_list: [],
        metadata: {},
        source_api: 'evermemos',
      },
    };
  });

// A backlog is stored in batches of a thousand into a table that keeps growing: the check for
// messages stored before must cost each batch its own size, not the size of the table.
test('storing a batch looks up each of its messages, and reads nothing else of the messages index', async (t) => {
  const store = await migratedStore(t);
  for (let from = 0; from < 10_000; from += 1_000) await appendMessages(store, items(from, 1_000, 64));
  // As autovacuum leaves a table that has taken a load: its visibility map set, which makes a scan
  // of the whole index look cheap to the planner.
  await store.query('VACUUM ANALYZE messages');

  const batch = items(10_000, 1_000, 64);
  const nodes = [...nodesOf((await explainRolledBack(store, APPEND_SQL, appendParameters(batch))).Plan)];

  const reads = nodes.filter((n) => n['Index Name'] === 'messages_conversation_id_message_id_key');
  assert.ok(reads.length > 0, 'the statement looks the batch up in the (conversation, message) index');
  const entriesRead = reads.reduce((sum, n) => sum + (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1), 0);
  // New messages find nothing; a scan of the whole index would return its 10,000 entries.
  assert.ok(entriesRead <= batch.length, `read ${entriesRead} index entries for a batch of ${batch.length}`);
});

// A trigger that fires for each stored row (a foreign key's check is one) costs a backlog its cost
// times the batch: the conversation's foreign key check was a sixth of the statement's server time.
// The statement upserts each conversation itself, so nothing needs checking row by row.
test('storing a batch fires no trigger once per message', async (t) => {
  const store = await migratedStore(t);
  await appendMessages(store, items(0, 200, 8));
  const batch = items(200, 500, 8);
  const { Triggers: triggers = [] } = await explainRolledBack(store, APPEND_SQL, appendParameters(batch));
  const perRow = triggers.filter((tr) => tr.Calls >= batch.length);
  assert.deepEqual(
    perRow.map((tr) => `${tr['Trigger Name']} (${tr.Calls} calls)`),
    [],
    'triggers fired once per message',
  );
  // the statement-level trigger that counts keywords still fires, once
  assert.ok(triggers.some((tr) => tr['Trigger Name'] === 'search_keywords_insert' && tr.Calls === 1));
});
