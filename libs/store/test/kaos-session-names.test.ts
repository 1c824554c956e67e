import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExportDataRecord } from '@memstream/schemas';
import {
  appendKaosEvents,
  beginImportScope,
  deleteKaosSessions,
  findKaosSession,
  importRecords,
  insertKaosSession,
  loadMigrations,
  migrate,
  type Queryable,
} from '@memstream/store';
import { migratedPglite, migratedPgliteWithout } from '../../../test/helpers/migrated-pglite.js';
import { log, migratedStore } from './search-fixtures.js';
import { waitFor } from '../../../test/helpers/infra.js';

const event = (id: string) => ({
  event_id: id,
  timestamp: '2026-01-01T00:00:00Z',
  event_type: 'user_message' as const,
  content: id,
  metadata: {},
});

/**
 * A session as the code before 0040 made one (main's insertKaosSession): its conversation and its
 * row, keyed (agent, session_id), with no name row. `ord` is the place a session started over keeps.
 */
async function oldSession(q: Queryable, agent: string, sessionId: string, conversationId: string, ord?: string) {
  await q.query(`INSERT INTO conversations (id, source_api, metadata, group_key) VALUES ($1, 'kaos', '{}', $1)`, [
    conversationId,
  ]);
  await q.query(
    `INSERT INTO kaos_sessions (agent, session_id, conversation_id, app_name, user_id, ord)
     VALUES ($1, $2, $3, 'app', 'u1', COALESCE($4::int8, nextval(pg_get_serial_sequence('kaos_sessions', 'ord'))))`,
    [agent, sessionId, conversationId, ord ?? null],
  );
  const session = (
    await q.query(`SELECT *, next_event::int8 AS next_event FROM kaos_sessions WHERE conversation_id = $1`, [
      conversationId,
    ])
  ).rows[0] as never;
  await appendKaosEvents(q, session, [event(`${conversationId}-1`), event(`${conversationId}-2`)], {
    maxEvents: 100,
    mayDrop: true,
  });
}

async function rowsOf(q: Queryable, sql: string): Promise<unknown[]> {
  return (await q.query<{ r: unknown }>(sql)).rows.map((row) => row.r);
}

const SESSIONS = 'SELECT to_jsonb(s) AS r FROM kaos_sessions s ORDER BY conversation_id';
const EVENTS = 'SELECT to_jsonb(e) AS r FROM kaos_events e ORDER BY conversation_id, seq';
const NAMES = 'SELECT to_jsonb(n) AS r FROM kaos_session_names n ORDER BY agent, session_id';

test('migration 0040 keeps every KAOS session and event, names each live session, and keys sessions by conversation', async () => {
  const store = await migratedPgliteWithout(40);
  try {
    await store.transaction(async (tx) => {
      await oldSession(tx, 'agent-a', 's1', 'kaos_e1');
      await oldSession(tx, 'agent-a', 's2', 'kaos_e2');
      // the same session id under another agent is another session
      await oldSession(tx, 'agent-b', 's1', 'kaos_e3');
      // agent-a's s2 started over, as main did it: the old incarnation deleted, the new keeping its place
      const { rows } = await tx.query<{ ord: string }>(
        `DELETE FROM kaos_sessions WHERE conversation_id = 'kaos_e2' RETURNING ord::text`,
      );
      await tx.query(`UPDATE conversations SET deleted_at = now() WHERE id = 'kaos_e2'`);
      await oldSession(tx, 'agent-a', 's2', 'kaos_e4', rows[0]!.ord);
    });
    const sessions = await rowsOf(store, SESSIONS);
    const events = await rowsOf(store, EVENTS);

    await migrate(
      store,
      log,
      (await loadMigrations()).filter((m) => m.version === 40),
    );

    assert.deepEqual(await rowsOf(store, SESSIONS), sessions);
    assert.deepEqual(await rowsOf(store, EVENTS), events);
    assert.deepEqual(await rowsOf(store, NAMES), [
      { agent: 'agent-a', session_id: 's1', conversation_id: 'kaos_e1' },
      { agent: 'agent-a', session_id: 's2', conversation_id: 'kaos_e4' },
      { agent: 'agent-b', session_id: 's1', conversation_id: 'kaos_e3' },
    ]);
    const { rows: keys } = await store.query<{ name: string; def: string }>(
      `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE contype IN ('p', 'u', 'f') AND conrelid::regclass::text IN ('kaos_sessions', 'kaos_session_names', 'kaos_events')
       ORDER BY conname`,
    );
    assert.deepEqual(Object.fromEntries(keys.map((k) => [k.name, k.def])), {
      kaos_events_conversation_id_event_id_key: 'UNIQUE (conversation_id, event_id)',
      kaos_events_conversation_id_fkey:
        'FOREIGN KEY (conversation_id) REFERENCES kaos_sessions(conversation_id) ON DELETE CASCADE',
      kaos_events_pkey: 'PRIMARY KEY (conversation_id, seq)',
      kaos_session_names_pkey: 'PRIMARY KEY (agent, session_id)',
      // 0042's form (it ran before 0040 here, as on a database that had it first)
      kaos_sessions_conversation_id_fkey:
        'FOREIGN KEY (conversation_id, conversation_key) REFERENCES conversations(group_key, id)',
      kaos_sessions_pkey: 'PRIMARY KEY (conversation_id)',
    });

    // the writers of after 0040 find, refuse and free names on the migrated rows
    assert.equal((await findKaosSession(store, 'agent-a', 's2'))?.conversation_id, 'kaos_e4');
    assert.equal((await findKaosSession(store, 'agent-b', 's1'))?.conversation_id, 'kaos_e3');
    const again = { agent: 'agent-a', sessionId: 's1', conversationId: 'kaos_e5', appName: 'app', userId: 'u1' };
    assert.equal(await store.transaction((tx) => insertKaosSession(tx, again)), false);
    await store.transaction(async (tx) => {
      assert.equal(await deleteKaosSessions(tx, ['kaos_e1']), 1);
      assert.equal(await insertKaosSession(tx, again), true);
    });
    assert.equal((await findKaosSession(store, 'agent-a', 's1'))?.conversation_id, 'kaos_e5');
  } finally {
    await store.close();
  }
});

const kaosSession = (agent: string, sessionId: string, conversationId: string) =>
  ({
    kind: 'kaos_session',
    agent,
    sessionId,
    conversationId,
    appName: 'app',
    userId: 'u1',
    ord: 1,
    nextEvent: 0,
    createdAt: '2025-01-01T10:00:00.000000Z',
    updatedAt: '2025-01-01T10:00:00.000000Z',
  }) as ExportDataRecord;
const kaosConversation = (id: string) =>
  ({
    kind: 'conversation',
    id,
    sourceApi: 'kaos',
    groupId: null,
    nextSeq: 0,
    title: null,
    metadata: {},
    createdAt: '2025-01-01T10:00:00.000000Z',
    updatedAt: '2025-01-01T10:00:00.000000Z',
    deletedAt: null,
  }) as ExportDataRecord;

test("an import of a KAOS session whose name the server's live session holds is refused, naming it", async () => {
  const store = await migratedPglite();
  try {
    await store.transaction((tx) =>
      insertKaosSession(tx, { agent: 'a', sessionId: 's', conversationId: 'kaos_here', appName: 'app', userId: 'u1' }),
    );
    await assert.rejects(
      store.transaction(async (tx) => {
        const scope = beginImportScope();
        await importRecords(tx, scope, 'conversation', [kaosConversation('kaos_there')] as never);
        await importRecords(tx, scope, 'kaos_session', [kaosSession('a', 's', 'kaos_there')] as never);
      }),
      { code: 'CONFLICT', message: /KAOS session id s is already another KAOS session/ },
    );
    assert.deepEqual(await rowsOf(store, NAMES), [{ agent: 'a', session_id: 's', conversation_id: 'kaos_here' }]);
  } finally {
    await store.close();
  }
});

test('two creates of one agent and session id at once end with one session', async (t) => {
  const store = await migratedStore(t);
  const create = (conversationId: string) => (tx: Queryable) =>
    insertKaosSession(tx, { agent: 'a', sessionId: 's', conversationId, appName: 'app', userId: 'u1' });
  let release!: () => void;
  const mayCommit = new Promise<void>((resolve) => {
    release = resolve;
  });
  let firstWrote!: () => void;
  const wrote = new Promise<void>((resolve) => {
    firstWrote = resolve;
  });
  const first = store.transaction(async (tx) => {
    const made = await create('kaos_first')(tx);
    firstWrote();
    await mayCommit;
    return made;
  });
  await wrote;
  let settled = false;
  const second = store.transaction(create('kaos_second')).finally(() => {
    settled = true;
  });
  // the second waits on the first's name row, or (without the key) has already gone through
  await waitFor('the second create to wait or finish', async () => {
    if (settled) return true;
    const { rows } = await store.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO kaos_session_names%'`,
    );
    return Number(rows[0]!.n) > 0;
  });
  release();
  assert.deepEqual(await Promise.all([first, second]), [true, false]);
  assert.deepEqual(await rowsOf(store, NAMES), [{ agent: 'a', session_id: 's', conversation_id: 'kaos_first' }]);
  assert.deepEqual(
    (await store.query(`SELECT conversation_id FROM kaos_sessions WHERE agent = 'a' AND session_id = 's'`)).rows,
    [{ conversation_id: 'kaos_first' }],
  );
});
