import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import { loadMigrations, migrate } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { appendBefore0039 } from './search-before-0039.js';

const log = createLogger({ service: 'test', level: 'silent' });

test('migration 0014 opens the summaries stored as agent-only to the members, in the messages and in search; other agent-only content stays', async () => {
  const store = await migratedPglite({ before: 14 });
  try {
    // today's writers write group_key: its migration (0037) goes ahead of the one under test
    await migrate(
      store,
      log,
      (await loadMigrations()).filter((m) => m.version === 37),
    );
    // and name the outcomes' key (0035, which needs tables this schema has not yet): the column
    // and key are here for the writes, which record no outcome, and go before the migrations run
    await store.query('ALTER TABLE request_outcomes ADD COLUMN group_key text, ADD UNIQUE (group_key, request_id)');
    // so is the conversations' key the append names (0038)
    await store.query('CREATE UNIQUE INDEX ahead_conversations ON conversations (id, group_key)');
    const all = await loadMigrations();
    const ms = (channel: string, visibility: string) => ({
      ms: { channel, visibility, client_id: 'bot', content: [], epoch: null, user_id: null },
    });
    const rows: Array<[string, Record<string, unknown>]> = [
      ['summary', ms('summary', 'agent')],
      ['memory', ms('memory', 'agent')],
      ['for agents', ms('history', 'agent')],
    ];
    // stored as the writers before 0039 stored them (today's write the search tables' group_key)
    await appendBefore0039(
      store,
      rows.map(([content, metadata], i) => ({
        conversation_id: 'c',
        message_id: `m${i}`,
        sender_id: 'bot',
        sender_name: 'bot',
        role: 'assistant',
        content,
        created_at: new Date(Date.UTC(2026, 0, 1, 0, i)),
        refer_list: [],
        metadata,
        source_api: 'memory-service',
      })),
    );
    // their vectors, as the indexer of that schema set them (today's writer fills columns later migrations add)
    await store.query(
      `UPDATE search_items SET embedding = '[1,0]', embedding_model = 'test/none' WHERE kind = 'message'`,
    );
    const audiences = async () => {
      const { rows: found } = await store.query<{ content: string; m: string | null; s: string | null }>(
        `SELECT m.content, m.audience AS m, s.audience AS s FROM messages m
           JOIN search_items s ON s.kind = 'message' AND s.item_id = m.id::text ORDER BY m.seq`,
      );
      return found.map((r) => [r.content, r.m, r.s]);
    };
    assert.deepEqual(await audiences(), [
      ['summary', 'agents', 'agents'],
      ['memory', 'agent:bot', 'agent:bot'],
      ['for agents', 'agents', 'agents'],
    ]);
    await store.query('ALTER TABLE request_outcomes DROP COLUMN group_key');
    await store.query('DROP INDEX ahead_conversations');
    await migrate(store, log, all);
    assert.deepEqual(await audiences(), [
      ['summary', null, null],
      ['memory', 'agent:bot', 'agent:bot'],
      ['for agents', 'agents', 'agents'],
    ]);
  } finally {
    await store.close();
  }
});
