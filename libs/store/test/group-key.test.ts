import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appendMessage, migrate, type Queryable } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { chatMessage, log } from './search-fixtures.js';

const groupKeys = async (q: Queryable, table: 'conversations' | 'messages') => {
  const key = table === 'conversations' ? 'id' : "conversation_id || '/' || message_id";
  const { rows } = await q.query<{ k: string; group_key: string }>(
    `SELECT ${key} AS k, group_key FROM ${table} ORDER BY 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.k, r.group_key]));
};

test('migration 0037 gives every stored conversation and message its group, and writers keep it', async () => {
  const store = await migratedPglite({ before: 37 });
  try {
    // rows as the code before the group column wrote them: a chat of its own, a memory-service
    // root with a fork in its group, a KAOS session, and a message left by a purged conversation
    await store.query(
      `INSERT INTO conversations (id, source_api, group_id, next_seq) VALUES
         ('chat', 'evermemos', NULL, 2), ('root', 'memory-service', NULL, 1), ('fork', 'memory-service', 'root', 1),
         ('kaos:a:s', 'kaos', NULL, 1)`,
    );
    await store.query(
      `INSERT INTO messages (conversation_id, seq, message_id, sender_id, sender_name, role, content, created_at, source_api)
       SELECT c, s, m, 'u1', 'U', 'user', 'words', now(), 'evermemos'
         FROM (VALUES ('chat', 0, 'a'), ('chat', 1, 'b'), ('root', 0, 'r'), ('fork', 0, 'f'), ('kaos:a:s', 0, 'k'),
                      ('gone', 0, 'g')) AS v(c, s, m)`,
    );
    await migrate(store, log);
    assert.deepEqual(await groupKeys(store, 'conversations'), {
      chat: 'chat',
      fork: 'root',
      'kaos:a:s': 'kaos:a:s',
      root: 'root',
    });
    assert.deepEqual(await groupKeys(store, 'messages'), {
      'chat/a': 'chat',
      'chat/b': 'chat',
      'fork/f': 'root',
      'gone/g': 'gone',
      'kaos:a:s/k': 'kaos:a:s',
      'root/r': 'root',
    });
    // the append takes the group of the conversation it adds to, or makes a new one its own group
    await appendMessage(store, chatMessage('fork', 'f2', 'more words'));
    await appendMessage(store, chatMessage('fresh', 'n', 'new words'));
    const after = await groupKeys(store, 'messages');
    assert.equal(after['fork/f2'], 'root');
    assert.equal(after['fresh/n'], 'fresh');
    assert.equal((await groupKeys(store, 'conversations')).fresh, 'fresh');
  } finally {
    await store.close();
  }
});
