import { test } from 'node:test';
import assert from 'node:assert/strict';
import { audienceOfMessage } from '@memstream/schemas';
import { appendMessage, listMessages } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';

// What memory-service writes under metadata.ms, and what other families write (no ms at all).
const CASES: Array<[string, Record<string, unknown>, string | null]> = [
  ['an EverMemOS message', { group_name: 'g' }, null],
  ['a history message for people', { ms: { channel: 'history', visibility: 'user', client_id: null } }, null],
  ['a message for agents', { ms: { channel: 'history', visibility: 'agent', client_id: 'bot' } }, 'agents'],
  ["an agent's working memory", { ms: { channel: 'memory', visibility: 'agent', client_id: 'bot' } }, 'agent:bot'],
  [
    'working memory written without a client',
    { ms: { channel: 'memory', visibility: 'agent', client_id: null } },
    'agent:',
  ],
  ['a summary', { ms: { channel: 'summary', visibility: 'user', client_id: 'bot' } }, null],
  ['a system message', { ms: { channel: 'history', visibility: 'system', client_id: null } }, null],
];

test("a message's audience is the same in the store's generated column and in the live events' label", async () => {
  const store = await migratedPglite();
  try {
    for (const [i, [what, metadata, expected]] of CASES.entries()) {
      await appendMessage(store, {
        conversation_id: 'audience',
        message_id: `m${i}`,
        sender_id: 'u1',
        sender_name: 'u1',
        role: 'user',
        content: what,
        created_at: new Date(Date.UTC(2025, 0, 1, 0, i)),
        refer_list: [],
        metadata,
        source_api: 'memory-service',
      });
      assert.equal(audienceOfMessage(metadata), expected, `${what}: the label`);
    }
    const { rows } = await store.query<{ message_id: string; audience: string | null }>(
      `SELECT message_id, audience FROM messages WHERE conversation_id = 'audience' ORDER BY seq`,
    );
    assert.deepEqual(
      rows.map((r) => r.audience),
      CASES.map(([, , expected]) => expected),
      'the generated column',
    );
    // and what a person's listing keeps is exactly what is for everyone
    const forPerson = await listMessages(store, {
      conversationId: 'audience',
      audiences: [],
      limit: 50,
      offset: 0,
      order: 'oldest-first',
    });
    assert.deepEqual(
      forPerson.items.map((m) => m.content),
      CASES.filter(([, , e]) => e === null).map(([what]) => what),
    );
    const forBot = await listMessages(store, {
      conversationId: 'audience',
      audiences: ['agents', 'agent:bot'],
      limit: 50,
      offset: 0,
      order: 'oldest-first',
    });
    assert.equal(forBot.items.length, CASES.filter(([, , e]) => e !== 'agent:').length);
  } finally {
    await store.close();
  }
});
