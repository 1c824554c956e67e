import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExportDataRecord } from '@memstream/schemas';
import {
  appendMessage,
  beginImportScope,
  finishImportScope,
  importRecords,
  insertConversation,
  loadMigrations,
  migrate,
  type Queryable,
} from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { rowsWithout, writerKeysAhead } from './catalog.js';
import { chatMessage, log } from './search-fixtures.js';
import { extract } from './extract-fixture.js';

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
    // the append files a message under the group it is given (a fork's root's), or makes a new
    // conversation its own group
    await appendMessage(store, { ...chatMessage('fork', 'f2', 'more words'), group_key: 'root' });
    await appendMessage(store, chatMessage('fresh', 'n', 'new words'));
    const after = await groupKeys(store, 'messages');
    assert.equal(after['fork/f2'], 'root');
    assert.equal(after['fresh/n'], 'fresh');
    assert.equal((await groupKeys(store, 'conversations')).fresh, 'fresh');
  } finally {
    await store.close();
  }
});

/** The three tables 0036 gives the column, each row whole but for it, in a stable order. */
const EXTRACTED = {
  episodes: 'conversation_id, start_seq',
  episodic_memories: 'conversation_id, id',
  memory: 'conversation_id, memory_id',
} as const;

const extractedRows = (q: Queryable) => rowsWithout(q, EXTRACTED, 'group_key');

/** Per table, each conversation's groups as its rows hold them. */
async function extractedGroups(q: Queryable): Promise<Record<string, Record<string, string[]>>> {
  const out: Record<string, Record<string, string[]>> = {};
  for (const table of Object.keys(EXTRACTED)) {
    const { rows } = await q.query<{ c: string; g: string[] }>(
      `SELECT conversation_id AS c, array_agg(DISTINCT group_key) AS g FROM ${table} GROUP BY 1 ORDER BY 1`,
    );
    out[table] = Object.fromEntries(rows.map((r) => [r.c, r.g]));
  }
  return out;
}

test('migration 0036 gives every stored episode, episodic memory and summary its group, and writers keep it', async () => {
  // the schema main left then: every migration up to 0037 but 0036, which here comes after 0037
  const store = await migratedPglite({ before: 36 });
  try {
    // and 0039, which today's search writers need (it reads only conversations' group, so it can
    // come before 0036 here)
    await migrate(
      store,
      log,
      (await loadMigrations()).filter((m) => m.version === 37 || m.version === 39),
    );
    // today's writers name the column and 0038's keys: they are here for their writes and dropped
    // before 0036 runs, so the rows are what main's writers left
    for (const table of Object.keys(EXTRACTED)) await store.query(`ALTER TABLE ${table} ADD COLUMN group_key text`);
    const dropKeys = await writerKeysAhead(store);
    // a memory-service root with a fork in its group, and a chat that is its own group (group_id NULL)
    await insertConversation(store, { id: 'root', groupId: 'root', title: null, metadata: {}, fork: null });
    await insertConversation(store, {
      id: 'fork',
      groupId: 'root',
      title: null,
      metadata: {},
      fork: { fromConversationId: 'root', atMessageId: null, source: null },
    });
    for (const [conversation, id] of [
      ['root', 'r0'],
      ['fork', 'f0'],
      ['chat', 'c0'],
    ] as const) {
      const source_api = conversation === 'chat' ? 'evermemos' : 'memory-service';
      const group_key = conversation === 'chat' ? 'chat' : 'root';
      await appendMessage(store, { ...chatMessage(conversation, id, 'words'), source_api, group_key });
      await extract(store, conversation, 0, id);
    }
    // a memory naming a conversation not stored (its key is to its episode only): its own group
    await store.query(
      `INSERT INTO episodic_memories (id, episode_id, conversation_id, version, content, occurred_at, ended_at, message_ids, extractor)
       SELECT 'stray', id, 'gone', 1, 'words', start_time, end_time, message_ids, 'test' FROM episodes WHERE conversation_id = 'chat'`,
    );
    await dropKeys();
    for (const table of Object.keys(EXTRACTED)) await store.query(`ALTER TABLE ${table} DROP COLUMN group_key`);
    const before = await extractedRows(store);
    assert.deepEqual(
      await migrate(
        store,
        log,
        (await loadMigrations()).filter((m) => m.version === 36),
      ),
      [36],
    );

    assert.deepEqual(await extractedRows(store), before, 'no row lost or changed');
    const own = { chat: ['chat'], fork: ['root'], root: ['root'] };
    assert.deepEqual(await extractedGroups(store), {
      episodes: own,
      episodic_memories: { ...own, gone: ['gone'] },
      memory: own,
    });
    for (const insert of [
      `INSERT INTO episodes (conversation_id, start_seq, end_seq, message_ids, start_time, end_time, close_reason)
       VALUES ('chat', 5, 5, '{}', now(), now(), 'flush')`,
      `INSERT INTO episodic_memories (id, episode_id, conversation_id, version, content, occurred_at, ended_at, message_ids, extractor)
       SELECT 'no-group', id, 'chat', 1, 'words', now(), now(), '{}', 'test' FROM episodes LIMIT 1`,
      `INSERT INTO memory (conversation_id, start_sequence, end_sequence) VALUES ('chat', 5, 5)`,
    ])
      await assert.rejects(store.query(insert), /null value in column "group_key"/);

    // 0038 next, then any later migration
    assert.equal((await migrate(store, log))[0], 38);
    // the writers take the group of the conversation they write for: a fork's is its root's
    await appendMessage(store, {
      ...chatMessage('fork', 'f1', 'more words'),
      source_api: 'memory-service',
      group_key: 'root',
    });
    await extract(store, 'fork', 1, 'f1');
    await appendMessage(store, chatMessage('fresh', 'n0', 'new words'));
    await extract(store, 'fresh', 0, 'n0');
    const after = await extractedGroups(store);
    for (const table of Object.keys(EXTRACTED)) {
      assert.deepEqual(after[table]!['fork'], ['root'], table);
      assert.deepEqual(after[table]!['fresh'], ['fresh'], table);
    }
  } finally {
    await store.close();
  }
});

test("an import stores a fork's episodes, memories and summaries in its root's group", async () => {
  const store = await migratedPglite();
  try {
    const at = '2026-01-02T03:04:05.000000Z';
    const conversation = (id: string, groupId: string | null) => ({
      kind: 'conversation',
      id,
      sourceApi: 'memory-service',
      groupId,
      nextSeq: 0,
      title: null,
      metadata: {},
      createdAt: at,
      updatedAt: at,
      deletedAt: null,
    });
    const times = { createdAt: at, updatedAt: at };
    const records = [
      conversation('iroot', 'iroot'),
      conversation('ifork', 'iroot'),
      conversation('ichat', null),
      ...(['ifork', 'ichat'] as const).flatMap((c, i) => [
        {
          kind: 'episode',
          id: 10 + i,
          conversationId: c,
          startSeq: 0,
          endSeq: 0,
          messageIds: ['m0'],
          startTime: at,
          endTime: at,
          closeReason: 'flush',
          status: 'extracted',
          version: 1,
          ...times,
        },
        {
          kind: 'episodic_memory',
          id: `mem-${c}`,
          episodeId: 10 + i,
          conversationId: c,
          version: 1,
          userId: 'u1',
          title: '',
          content: 'words',
          occurredAt: at,
          endedAt: at,
          messageIds: ['m0'],
          participants: ['u1'],
          extractor: 'test',
          supersededAt: null,
          createdAt: at,
        },
        {
          kind: 'summary',
          id: 20 + i,
          conversationId: c,
          text: 'summary',
          startSequence: 0,
          endSequence: 0,
          baseId: null,
          generationTimeMs: 1,
          ...times,
        },
      ]),
    ] as ExportDataRecord[];
    await store.transaction(async (tx) => {
      const scope = beginImportScope();
      for (const r of records) assert.equal((await importRecords(tx, scope, r.kind, [r] as never)).stored, 1, r.kind);
      await finishImportScope(tx, scope);
    });
    const own = { ichat: ['ichat'], ifork: ['iroot'] };
    assert.deepEqual(await extractedGroups(store), { episodes: own, episodic_memories: own, memory: own });
  } finally {
    await store.close();
  }
});
