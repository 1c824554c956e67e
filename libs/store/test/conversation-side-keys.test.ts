import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExportDataRecord } from '@memstream/schemas';
import {
  appendMessage,
  appendStreamChunks,
  beginImportScope,
  finishImportScope,
  importRecords,
  insertConversation,
  insertKaosSession,
  migrate,
  type NewMessage,
  type Queryable,
  type Store,
} from '@memstream/store';
import { migratedPglite, migratedPgliteWithout } from '../../../test/helpers/migrated-pglite.js';
import { rowsWithout, writerKeysAhead } from './catalog.js';
import { type Explained, nodesOf } from './explain.js';
import { chatMessage, log } from './search-fixtures.js';
import { extract } from './extract-fixture.js';

/** The tables 0038 keys by their group, each ordered by its old key. */
const TABLES = {
  conversations: 'id',
  messages: 'conversation_id, seq',
  episodes: 'id',
  episodic_memories: 'id',
  memory: 'memory_id',
  kaos_sessions: 'agent, session_id',
} as const;

/** Reads that name no group: each must still find its rows through an index, not a scan. */
const LOOKUPS = [
  `SELECT * FROM conversations WHERE id = 'fork'`,
  `SELECT * FROM messages WHERE conversation_id = 'fork' AND seq BETWEEN 0 AND 5`,
  `SELECT * FROM messages WHERE conversation_id = 'fork' AND message_id = 'f1'`,
  'SELECT * FROM episodes WHERE id = 1',
  `SELECT * FROM episodic_memories WHERE id = 'mem_0'`,
  'SELECT * FROM memory WHERE memory_id = 1',
];

const rowsOf = (q: Queryable) => rowsWithout(q, TABLES, 'no such column');

/** Primary keys, unique constraints and indexes, and foreign keys of the tables, by name. */
async function keysOf(q: Queryable): Promise<Record<string, string>> {
  const { rows } = await q.query<{ name: string; def: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE contype IN ('p', 'u', 'f') AND conrelid::regclass::text = ANY($1::text[])
     UNION ALL
     SELECT indexname, indexdef FROM pg_indexes WHERE indexname = 'memory_one_processing_per_conversation'
     ORDER BY 1`,
    [Object.keys(TABLES)],
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.def]));
}

const said = (conversation: string, id: string, more: Partial<NewMessage> = {}): NewMessage => ({
  ...chatMessage(conversation, id, `words ${id}`),
  ...more,
});

/** Every family's conversation-side rows, written as main writes them. */
async function fill(store: Store): Promise<void> {
  await insertConversation(store, { id: 'root', groupId: 'root', title: null, metadata: {}, fork: null });
  await appendMessage(store, said('root', 'r0', { source_api: 'memory-service', group_key: 'root' }));
  const fork = { fromConversationId: 'root', atMessageId: 'r0', source: { conversationId: 'root', seq: 0 } };
  await insertConversation(store, { id: 'fork', groupId: 'root', title: 'f', metadata: {}, fork });
  for (const [conversation, id, more] of [
    ['fork', 'f0', { source_api: 'memory-service', group_key: 'root' }],
    ['fork', 'f1', { source_api: 'memory-service', group_key: 'root' }],
    ['chat', 'c0', {}],
    ['chat', 'c1', {}],
    ['ark-s', 'a0', { source_api: 'ark' }],
  ] as const) {
    await appendMessage(store, said(conversation, id, more));
  }
  await appendStreamChunks(store, 'ark-s', [{ t: 1 }]);
  await store.transaction((tx) =>
    insertKaosSession(tx, { agent: 'a', sessionId: 's', conversationId: 'kaos_e1', appName: 'app', userId: 'u1' }),
  );
  await appendMessage(store, said('kaos_e1', 'k0', { source_api: 'kaos' }));
  await extract(store, 'root', 0, 'r0');
  await extract(store, 'fork', 0, 'f0');
  await extract(store, 'fork', 1, 'f1'); // its summary is built on the first
  await extract(store, 'chat', 0, 'c0');
}

test('migration 0038 keeps every conversation-side row and puts the group in their keys', async () => {
  // the schema main leaves: every migration before 0038
  const store = await migratedPgliteWithout(38);
  try {
    const dropKeys = await writerKeysAhead(store);
    await fill(store);
    await dropKeys();
    const before = await rowsOf(store);
    assert.equal(before.memory!.filter((m) => (m as { base_memory_id: unknown }).base_memory_id !== null).length, 1);
    assert.deepEqual(await migrate(store, log), [38]);

    assert.deepEqual(await rowsOf(store), before, 'no row lost or changed');
    assert.deepEqual(await keysOf(store), {
      conversations_pkey: 'PRIMARY KEY (id, group_key)',
      episodes_conversation_id_fkey:
        'FOREIGN KEY (conversation_id, group_key) REFERENCES conversations(id, group_key) ON DELETE CASCADE',
      episodes_conversation_id_start_seq_key: 'UNIQUE (conversation_id, start_seq, group_key)',
      episodes_pkey: 'PRIMARY KEY (id, group_key)',
      episodic_memories_episode_id_fkey:
        'FOREIGN KEY (episode_id, group_key) REFERENCES episodes(id, group_key) ON DELETE CASCADE',
      episodic_memories_pkey: 'PRIMARY KEY (id, group_key)',
      kaos_sessions_conversation_id_fkey:
        'FOREIGN KEY (conversation_id, conversation_id) REFERENCES conversations(group_key, id)',
      // 0040's key (applied before 0038 here, as on a database that had it first)
      kaos_sessions_pkey: 'PRIMARY KEY (conversation_id)',
      memory_base_memory_id_fkey: 'FOREIGN KEY (base_memory_id, group_key) REFERENCES memory(memory_id, group_key)',
      memory_conversation_id_fkey:
        'FOREIGN KEY (conversation_id, group_key) REFERENCES conversations(id, group_key) ON DELETE CASCADE',
      memory_one_processing_per_conversation:
        "CREATE UNIQUE INDEX memory_one_processing_per_conversation ON public.memory USING btree (conversation_id, group_key) WHERE (status = 'processing'::text)",
      memory_pkey: 'PRIMARY KEY (memory_id, group_key)',
      messages_conversation_id_message_id_key: 'UNIQUE (conversation_id, message_id, group_key)',
      messages_pkey: 'PRIMARY KEY (conversation_id, seq, group_key)',
    });

    // a read by id alone, or by conversation alone, is still a lookup in a key's index
    for (const sql of LOOKUPS) {
      const plan = await store.transaction(async (tx) => {
        await tx.query('SET LOCAL enable_seqscan = off');
        const { rows } = await tx.query<{ 'QUERY PLAN': Explained[] }>(`EXPLAIN (FORMAT JSON) ${sql}`);
        return rows[0]!['QUERY PLAN'][0]!.Plan;
      });
      const used = [...nodesOf(plan)].filter((n) => n['Index Name'] && n['Index Cond']);
      assert.equal(used.length, 1, `${sql}: ${JSON.stringify(plan)}`);
    }

    // the writers go on under the new keys: a fork's next message numbers on in its one row
    const [next] = await Promise.all([appendMessage(store, said('fork', 'f2', { group_key: 'root' }))]);
    assert.equal(next!.message.seq, 2);
    await extract(store, 'fork', 2, 'f2');
    const { rows } = await store.query<{ id: string; n: number }>(
      'SELECT id, count(*)::int AS n FROM conversations GROUP BY id HAVING count(*) > 1',
    );
    assert.deepEqual(rows, []);
  } finally {
    await store.close();
  }
});

/** How many rows hold each id: every one should be 1. */
async function idCounts(q: Queryable, table: string, id: string): Promise<Record<string, number>> {
  const { rows } = await q.query<{ id: string; n: number }>(
    `SELECT ${id}::text AS id, count(*)::int AS n FROM ${table} GROUP BY 1 ORDER BY 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.n]));
}

test('an id stays unique across groups with no key on it alone: a fork, an import', async () => {
  const store = await migratedPglite();
  try {
    await fill(store);
    // a fork (its root's group) naming an id a conversation of its own group holds is not made
    const clash = { fromConversationId: 'root', atMessageId: 'r0', source: { conversationId: 'root', seq: 0 } };
    assert.equal(
      await insertConversation(store, { id: 'chat', groupId: 'root', title: null, metadata: {}, fork: clash }),
      false,
    );
    assert.equal((await idCounts(store, 'conversations', 'id')).chat, 1);

    const held = await store.query<{ id: string; memory_id: string }>(
      `SELECT (SELECT id FROM episodic_memories WHERE conversation_id = 'chat' LIMIT 1) AS id,
              (SELECT memory_id FROM memory WHERE conversation_id = 'chat' LIMIT 1)::text AS memory_id`,
    );
    const at = '2026-01-02T03:04:05.000000Z';
    const times = { createdAt: at, updatedAt: at };
    const records = [
      {
        kind: 'conversation',
        id: 'moved',
        sourceApi: 'evermemos',
        groupId: null,
        nextSeq: 0,
        title: null,
        metadata: {},
        ...times,
        deletedAt: null,
      },
      {
        kind: 'episode',
        id: 900,
        conversationId: 'moved',
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
      // an episodic memory whose id a memory of another group holds
      {
        kind: 'episodic_memory',
        id: held.rows[0]!.id,
        episodeId: 900,
        conversationId: 'moved',
        version: 1,
        userId: 'u1',
        title: '',
        content: 'moved words',
        occurredAt: at,
        endedAt: at,
        messageIds: ['m0'],
        participants: ['u1'],
        extractor: 'test',
        supersededAt: null,
        createdAt: at,
      },
      // a summary built on one of another group: it stands on its own
      {
        kind: 'summary',
        id: 901,
        conversationId: 'moved',
        text: 'moved summary',
        startSequence: 0,
        endSequence: 0,
        baseId: Number(held.rows[0]!.memory_id),
        generationTimeMs: 1,
        ...times,
      },
    ] as ExportDataRecord[];
    const stored: Record<string, number> = {};
    await store.transaction(async (tx) => {
      const scope = beginImportScope();
      for (const r of records) stored[r.kind] = (await importRecords(tx, scope, r.kind, [r] as never)).stored;
      await finishImportScope(tx, scope);
    });
    assert.deepEqual(stored, { conversation: 1, episode: 1, episodic_memory: 0, summary: 1 });
    assert.ok(Object.values(await idCounts(store, 'episodic_memories', 'id')).every((n) => n === 1));
    const { rows } = await store.query(`SELECT base_memory_id FROM memory WHERE memory_id = 901`);
    assert.deepEqual(rows, [{ base_memory_id: null }]);
  } finally {
    await store.close();
  }
});
