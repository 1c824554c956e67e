import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { embeddedMemstream } from '../helpers/embedded.js';
import { pipelineEnv, startApi, startServices } from '../helpers/distributed.js';
import { freshDatabase, uniqueName, waitFor } from '../helpers/infra.js';
import { bearer, userToken } from '../../harness/credentials.js';
import { ERASURE_ENV, http, type Reply } from './erasure-contract.js';
import { KEYS } from './admin-contract.js';

type Headers = Record<string, string>;

/** Thirty days for every kind but KAOS events (ten); the job looks every 200 ms, so a test waits for it, not for a clock. */
const RETENTION_ENV = {
  ...ERASURE_ENV,
  RETENTION_MESSAGES: 'P30D',
  RETENTION_MEMORIES: 'P30D',
  RETENTION_SUMMARIES: 'P30D',
  RETENTION_KAOS_EVENTS: 'P10D',
  RETENTION_ARK_SESSIONS: 'P30D',
  RETENTION_DELETED: 'P30D',
  RETENTION_INTERVAL_MS: '200',
  RETENTION_BATCH_SIZE: '2',
};

function ok(reply: Reply, status: number, what: string): any {
  assert.equal(reply.status, status, `${what}: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** The keys of the rows of a table that belong to some conversations. */
async function keys(db: pg.Client, sql: string, ids: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ k: string }>(sql, [ids]);
  return rows.map((r) => r.k).sort();
}

const MESSAGE_KEYS = `SELECT conversation_id || '/' || message_id AS k FROM messages WHERE conversation_id = ANY($1::text[])`;
const MEMORY_KEYS = 'SELECT id AS k FROM episodic_memories WHERE conversation_id = ANY($1::text[])';
const SUMMARY_KEYS = 'SELECT memory_id::text AS k FROM memory WHERE conversation_id = ANY($1::text[])';
const EVENT_KEYS = `SELECT conversation_id || '/' || seq AS k FROM kaos_events WHERE conversation_id = ANY($1::text[])`;
const SEARCH_KEYS = 'SELECT kind || item_id AS k FROM search_items WHERE conversation_id = ANY($1::text[])';
const ARK_KEYS = 'SELECT session_id AS k FROM ark_sessions WHERE session_id = ANY($1::text[])';
const CONVERSATION_KEYS = 'SELECT id AS k FROM conversations WHERE id = ANY($1::text[])';
const ALL_KEYS = [MESSAGE_KEYS, MEMORY_KEYS, SUMMARY_KEYS, EVENT_KEYS, SEARCH_KEYS, ARK_KEYS, CONVERSATION_KEYS];

/**
 * `column` moved `days` into the past, in UTC: with functions Citus allows beside a column in an
 * UPDATE (timestamptz minus an interval depends on the session's time zone, so it refuses that).
 */
const daysBefore = (column: string, days: number) =>
  `((${column} AT TIME ZONE 'UTC') - interval '${days} days') AT TIME ZONE 'UTC'`;

/** Every timestamp of these conversations moved `days` into the past, as if they had been written then. */
async function age(db: pg.Client, ids: readonly string[], days: number): Promise<void> {
  const back = (column: string) => `${column} = ${daysBefore(column, days)}`;
  await db.query('BEGIN');
  await db.query(
    `UPDATE messages SET ${back('created_at')}, ${back('stored_at')} WHERE conversation_id = ANY($1::text[])`,
    [ids],
  );
  await db.query(`UPDATE episodic_memories SET ${back('created_at')} WHERE conversation_id = ANY($1::text[])`, [ids]);
  await db.query(`UPDATE memory SET ${back('created_at')} WHERE conversation_id = ANY($1::text[])`, [ids]);
  await db.query(`UPDATE kaos_events SET ${back('occurred_at')} WHERE conversation_id = ANY($1::text[])`, [ids]);
  await db.query(
    `UPDATE ark_sessions SET ${back('created_at')}, ${back('completed_at')} WHERE session_id = ANY($1::text[])`,
    [ids],
  );
  await db.query(`UPDATE stream_chunks SET ${back('created_at')} WHERE session_id = ANY($1::text[])`, [ids]);
  await db.query(`UPDATE conversations SET ${back('created_at')} WHERE id = ANY($1::text[])`, [ids]);
  await db.query('COMMIT');
}

/** What a run removed, summed over the audit log's retention entries. */
async function audited(db: pg.Client): Promise<Record<string, number>> {
  const { rows } = await db.query<{ counts: Record<string, number> }>(
    `SELECT counts FROM audit_log WHERE action = 'retention.run' AND actor_kind = 'system'`,
  );
  const sum: Record<string, number> = {};
  for (const { counts } of rows) for (const [k, n] of Object.entries(counts)) sum[k] = (sum[k] ?? 0) + n;
  return sum;
}

test('embedded mode: a 30-day retention removes, in every family, exactly what is older (with what was made of it) and keeps the rest; a conversation may shorten it', async (t: TestContext) => {
  const databaseUrl = await freshDatabase(t);
  const base = await embeddedMemstream(t, { ...RETENTION_ENV, DATABASE_URL: databaseUrl });
  await withDatabase(databaseUrl, (db) => expireAndKeep(base, db, base));
});

test('distributed mode: the governance process runs the same retention, counted on its own /metrics', async (t: TestContext) => {
  const env = await pipelineEnv(t, 'retention', { ...RETENTION_ENV, SUMMARIZER_GROUP_ID: uniqueName('summarizer') });
  const [, governance] = await startServices(t, env, ['converter', 'governance', 'indexer', 'extractor', 'summarizer']);
  const [api] = await startApi(t, env);
  await withDatabase(env['DATABASE_URL']!, (db) => expireAndKeep(api!, db, governance!));
});

async function withDatabase(url: string, work: (db: pg.Client) => Promise<void>): Promise<void> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  // ended here, not in an after hook: the database is dropped by the hook registered before it
  try {
    await work(db);
  } finally {
    await db.end();
  }
}

/** Writes old and new data in every family, ages some of it, and checks what the job removes and keeps. */
async function expireAndKeep(base: string, db: pg.Client, metricsBase: string): Promise<void> {
  const prefix = uniqueName('rt').replace('_', '');
  const rosa = `${prefix}rosa`;
  const as: Record<'rosa' | 'agent', Headers> = {
    rosa: bearer(await userToken(rosa)),
    agent: { 'x-api-key': KEYS.assistant },
  };

  // EverMemOS (and the Memory Agent's rolling summaries of it): an old group, a new group, a
  // group whose first episode is old and second new, one whose memories and summaries are old but
  // not its messages, and one 20 days old (kept: only KAOS events live ten days).
  const evermemos = (group: string, i: number) =>
    http(base, 'POST', '/api/v1/memories', as.agent, {
      group_id: group,
      message_id: `m${i}`,
      create_time: new Date().toISOString(),
      sender: i % 2 === 0 ? rosa : `${prefix}sam`,
      content: `line ${i} of ${group} about the harbour plans`,
    });
  const [oldGroup, newGroup, mixedGroup, madeGroup, midGroup] = ['old', 'new', 'mixed', 'made', 'mid'].map(
    (g) => `${prefix}-${g}`,
  ) as [string, string, string, string, string];
  for (const group of [oldGroup, newGroup, madeGroup, midGroup])
    for (let i = 0; i < 4; i++) ok(await evermemos(group, i), 200, group);
  for (let i = 0; i < 8; i++) ok(await evermemos(mixedGroup, i), 200, mixedGroup);

  // memory-service: old, new, and one whose metadata shortens retention to a day (aged two days,
  // as is a plain one beside it); two deleted ones, one long ago, one now.
  const conversation = async (title: string, metadata?: Record<string, unknown>) =>
    ok(await http(base, 'POST', '/v1/conversations', as.rosa, { title, ...(metadata ? { metadata } : {}) }), 201, title)
      .id as string;
  const say = async (id: string, text: string) =>
    ok(
      await http(base, 'POST', `/v1/conversations/${id}/messages`, as.rosa, { content: [{ type: 'text', text }] }),
      201,
      'message',
    );
  const memoryServiceOld = await conversation('old');
  const memoryServiceNew = await conversation('new');
  const memoryServiceShort = await conversation('short', { retention: 'P1D' });
  const memoryServicePlain = await conversation('plain');
  const memoryServiceDeletedLongAgo = await conversation('deleted long ago');
  const memoryServiceDeletedNow = await conversation('deleted now');
  for (const id of [
    memoryServiceOld,
    memoryServiceNew,
    memoryServiceShort,
    memoryServicePlain,
    memoryServiceDeletedLongAgo,
    memoryServiceDeletedNow,
  ])
    for (let i = 0; i < 3; i++) await say(id, `note ${i} on the lighthouse`);
  for (const id of [memoryServiceDeletedLongAgo, memoryServiceDeletedNow])
    assert.equal((await http(base, 'DELETE', `/v1/conversations/${id}`, as.rosa)).status, 204, 'deleted');

  // KAOS: an old session and a new one.
  const kaosSession = async () => {
    const id = ok(await http(base, 'POST', '/memory/sessions', as.rosa, { app_name: 'app' }), 201, 'kaos session')
      .session_id as string;
    for (let i = 0; i < 3; i++)
      ok(
        await http(base, 'POST', `/memory/sessions/${id}/events`, as.rosa, {
          event_type: 'user_message',
          content: `kaos turn ${i} about the tides`,
        }),
        201,
        'kaos event',
      );
    const { rows } = await db.query<{ conversation_id: string }>(
      'SELECT conversation_id FROM kaos_sessions WHERE session_id = $1',
      [id],
    );
    return rows[0]!.conversation_id;
  };
  const kaosOld = await kaosSession();
  const kaosNew = await kaosSession();
  const kaosMid = await kaosSession();

  // ARK: an old session and a new one.
  const ark = async (session: string) =>
    ok(
      await http(base, 'POST', '/messages', as.agent, {
        session_id: session,
        messages: [
          { role: 'user', content: 'ark asks about the ferry' },
          { role: 'assistant', content: 'noted' },
        ],
      }),
      200,
      'ark batch',
    );
  const [arkOld, arkNew] = [`${prefix}-ark-old`, `${prefix}-ark-new`];
  await ark(arkOld);
  await ark(arkNew);

  // What is made of the words first: memories and summaries of both EverMemOS groups, vectors.
  const count = async (sql: string, ids: readonly string[]) => (await keys(db, sql, ids)).length;
  const searchable = async (ids: readonly string[]) => {
    for (const id of ids) if ((await count(SEARCH_KEYS, [id])) === 0) return false;
    return true;
  };
  await waitFor(
    'memories, rolling summaries and search rows of the old and new groups',
    async () =>
      (await count(MEMORY_KEYS, [oldGroup])) > 0 &&
      (await count(MEMORY_KEYS, [newGroup])) > 0 &&
      (await count(MEMORY_KEYS, [mixedGroup])) > 1 &&
      (await count(SUMMARY_KEYS, [oldGroup])) > 0 &&
      (await count(SUMMARY_KEYS, [newGroup])) > 0 &&
      (await count(MEMORY_KEYS, [madeGroup])) > 0 &&
      (await count(SUMMARY_KEYS, [madeGroup])) > 0 &&
      (await searchable([oldGroup, newGroup, memoryServiceOld, memoryServiceNew, kaosOld, kaosNew, arkOld, arkNew])),
    120_000,
  );

  const kept = [newGroup, memoryServiceNew, memoryServicePlain, memoryServiceDeletedNow, kaosNew, arkNew, midGroup];
  const expired = [oldGroup, memoryServiceOld, kaosOld, arkOld, kaosMid];
  const keptBefore: string[][] = [];
  for (const sql of ALL_KEYS) keptBefore.push(await keys(db, sql, kept));
  for (const [i, sql] of [MESSAGE_KEYS, EVENT_KEYS, SEARCH_KEYS].entries())
    assert.ok((await count(sql, expired)) > 0, `something to expire (${i})`);
  // the mixed group's first four messages (its first episode) become old, the others stay new
  const firstEpisode = await db.query<{ id: string; message_ids: string[] }>(
    `SELECT id, message_ids FROM episodic_memories WHERE conversation_id = $1 AND 'm0' = ANY(message_ids)`,
    [mixedGroup],
  );
  assert.ok(firstEpisode.rows.length > 0, 'the old episode has memories');
  const secondEpisode = await keys(
    db,
    `SELECT id AS k FROM episodic_memories WHERE conversation_id = ANY($1::text[]) AND NOT ('m0' = ANY(message_ids) OR 'm3' = ANY(message_ids))`,
    [mixedGroup],
  );
  assert.ok(secondEpisode.length > 0, 'the new episode has memories');

  await age(db, [oldGroup, memoryServiceOld, kaosOld, arkOld], 60);
  await age(db, [kaosMid, midGroup], 20);
  await db.query(
    `UPDATE episodic_memories SET created_at = ${daysBefore('created_at', 60)} WHERE conversation_id = $1`,
    [madeGroup],
  );
  await db.query(`UPDATE memory SET created_at = ${daysBefore('created_at', 60)} WHERE conversation_id = $1`, [
    madeGroup,
  ]);
  await age(db, [memoryServiceShort, memoryServicePlain], 2);
  await db.query(
    `UPDATE messages SET created_at = ${daysBefore('created_at', 60)} WHERE conversation_id = $1 AND message_id IN ('m0','m1','m2','m3')`,
    [mixedGroup],
  );
  // deleted 60 days ago, and written to before that (a message stored after a deletion keeps it)
  await age(db, [memoryServiceDeletedLongAgo], 60);
  await db.query(`UPDATE conversations SET deleted_at = ${daysBefore('deleted_at', 60)} WHERE id = $1`, [
    memoryServiceDeletedLongAgo,
  ]);

  // Everything older goes, in every family, with what was made of it.
  const olderLeft = async () => ({
    messages: await count(MESSAGE_KEYS, expired),
    kaosEvents: await count(EVENT_KEYS, expired),
    searchRows: await count(SEARCH_KEYS, expired),
    memories: await count(MEMORY_KEYS, expired),
    arkSessions: await count(ARK_KEYS, expired),
    mixedMessages: await count(`${MESSAGE_KEYS} AND created_at < now() - interval '30 days'`, [mixedGroup]),
    oldMemories: await count(`${MEMORY_KEYS} AND created_at < now() - interval '30 days'`, [
      ...expired,
      mixedGroup,
      madeGroup,
    ]),
    oldSummaries: await count(`${SUMMARY_KEYS} AND created_at < now() - interval '30 days'`, [...expired, madeGroup]),
    shortened: await count(MESSAGE_KEYS, [memoryServiceShort]),
    deletedLongAgo: await count(CONVERSATION_KEYS, [memoryServiceDeletedLongAgo]),
    arkConversation: await count(CONVERSATION_KEYS, [arkOld]),
  });
  let left = await olderLeft();
  await waitFor(
    'the retention job to remove what is older',
    async () => {
      left = await olderLeft();
      return Object.values(left).every((n) => n === 0);
    },
    60_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; left: ${JSON.stringify(left)}`);
  });

  // The mixed group: its first episode's messages and the memories made of them are gone; the rest stays.
  assert.deepEqual(
    await keys(db, MESSAGE_KEYS, [mixedGroup]),
    ['m4', 'm5', 'm6', 'm7'].map((m) => `${mixedGroup}/${m}`),
  );
  const firstIds = firstEpisode.rows.map((r) => r.id);
  assert.equal(
    (await keys(db, MEMORY_KEYS, [mixedGroup])).filter((id) => firstIds.includes(id)).length,
    0,
    'the old episode memories are removed',
  );
  for (const id of secondEpisode)
    assert.ok((await keys(db, MEMORY_KEYS, [mixedGroup])).includes(id), 'the new episode memories stay');

  assert.equal(
    await count(MESSAGE_KEYS, [madeGroup]),
    4,
    'old memories and summaries go, not the messages they came from',
  );

  // Nothing newer was touched: every row of the kept conversations is still there.
  const keptAfter: string[][] = [];
  for (const sql of ALL_KEYS) keptAfter.push(await keys(db, sql, kept));
  for (const [i, before] of keptBefore.entries()) {
    const missing = before.filter((k) => !keptAfter[i]!.includes(k));
    assert.deepEqual(missing, [], `rows kept (${ALL_KEYS[i]})`);
  }
  // and what is read back through the families agrees
  const memoryServiceMessages = ok(
    await http(base, 'GET', `/v1/conversations/${memoryServiceNew}/messages`, as.rosa),
    200,
    'ms read',
  );
  assert.equal(memoryServiceMessages.data.length, 3, 'the new memory-service conversation keeps its messages');
  const oldRead = ok(
    await http(base, 'GET', `/v1/conversations/${memoryServiceOld}/messages`, as.rosa),
    200,
    'ms read old',
  );
  assert.equal(oldRead.data.length, 0, 'the old one has none left');

  // The run is in the audit log with counts (never content) and in the metrics. The run writes
  // its audit entry once all its passes are done, which may be after the rows above are gone.
  const AUDITED = [
    'messages.messages',
    'messages.episodicMemories',
    'kaosEvents.kaosEvents',
    'memories.episodicMemories',
    'summaries.summaries',
    'arkSessions.arkSessions',
    'deleted.conversationGroups',
  ];
  const counts = await waitFor('the run audited', async () => {
    const sum = await audited(db);
    return AUDITED.every((key) => (sum[key] ?? 0) > 0) ? sum : undefined;
  }).catch(() => audited(db));
  for (const key of AUDITED) assert.ok((counts[key] ?? 0) > 0, `audited ${key}: ${JSON.stringify(counts)}`);
  // counted right after the run returns, a moment after its audit entry
  const REMOVED = /memstream_retention_removed_total\{kind="messages",what="messages"\} [1-9]/;
  const LAST_RUN = /memstream_retention_last_run_timestamp_seconds [1-9]/;
  const metrics = await waitFor('the run counted', async () => {
    const text = await (await fetch(`${metricsBase}/metrics`)).text();
    return REMOVED.test(text) && LAST_RUN.test(text) ? text : undefined;
  }).catch(async () => (await fetch(`${metricsBase}/metrics`)).text());
  assert.match(metrics, REMOVED);
  assert.match(metrics, LAST_RUN);
}
