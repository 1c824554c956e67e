import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import { uniqueName } from '../helpers/infra.js';
import { TEST_JWT_SECRET } from '../../harness/credentials.js';

/**
 * What the export and import tests share: a world written in every family by bob, dave, carol and
 * an agent; when everything made from it is there; every family's answers to compare a source
 * and a target by; the export and import calls.
 */
export const AGENT_KEY = 'assistant-key-0123456789abcdef';
export const ENV = {
  AUTH_JWT_SECRET: TEST_JWT_SECRET,
  AUTH_API_KEYS: `assistant:${AGENT_KEY}`,
  SUMMARY_SWEEP_INTERVAL_MS: '200',
  INDEXER_SWEEP_INTERVAL_MS: '200',
};
export const KAOS = { 'x-kaos-agent': 'agent-x' };

export type Headers = Record<string, string>;

export async function call(
  base: string,
  who: Headers,
  method: string,
  path: string,
  body?: unknown,
  extra: Headers = {},
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...who, ...extra, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export async function ok(
  base: string,
  who: Headers,
  method: string,
  path: string,
  body?: unknown,
  extra: Headers = {},
) {
  const res = await call(base, who, method, path, body, extra);
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** `memstream` as a user runs it, in its own process, with an admin's token in its environment. */
export interface World {
  readonly group: string;
  readonly ms: string;
  readonly fork: string;
  readonly carols: string;
  readonly kaosSession: string;
  readonly arkSession: string;
  readonly marks: { bob: string; dave: string; carol: string };
}

/** Writes in every family, as bob (owner), dave (a member of bob's conversation), carol (alone) and an agent. */
export async function writeEverywhere(
  base: string,
  who: Record<'agent' | 'bob' | 'dave' | 'carol', Headers>,
): Promise<World> {
  const marks = { bob: uniqueName('bobword'), dave: uniqueName('daveword'), carol: uniqueName('carolword') };
  const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
  // memory-service: bob's conversation, a fork, dave as a writer who writes in it; carol's own
  const ms = (await ok(base, who.bob, 'POST', '/v1/conversations', { title: `trip ${marks.bob}` })).id as string;
  const first = await ok(base, who.bob, 'POST', `/v1/conversations/${ms}/messages`, text(`plan ${marks.bob} Lisbon`));
  await ok(base, who.bob, 'POST', `/v1/conversations/${ms}/messages`, text(`book the ${marks.bob} train`));
  const fork = (await ok(base, who.bob, 'POST', `/v1/conversations/${ms}/messages/${first.id as string}/fork`, {}))
    .id as string;
  await ok(base, who.bob, 'POST', `/v1/conversations/${fork}/messages`, text(`forked ${marks.bob} Porto`));
  await ok(base, who.bob, 'POST', `/v1/conversations/${ms}/memberships`, { userId: 'dave', accessLevel: 'writer' });
  await ok(base, who.dave, 'POST', `/v1/conversations/${ms}/messages`, text(`dave adds ${marks.dave} museum`));
  const carols = (await ok(base, who.carol, 'POST', '/v1/conversations', { title: `carol ${marks.carol}` }))
    .id as string;
  await ok(base, who.carol, 'POST', `/v1/conversations/${carols}/messages`, text(`secret ${marks.carol} recipe`));

  // EverMemOS: metadata and a group's messages (enough for a Memory Agent summary), flushed into memories
  const group = uniqueName('team');
  await ok(base, who.agent, 'POST', '/api/v1/memories/conversation-meta', {
    group_id: group,
    version: '1.0',
    scene: 'group_chat',
    scene_desc: { topic: 'travel' },
    name: 'travel team',
    description: 'planning',
    created_at: '2025-01-01T00:00:00Z',
    default_timezone: 'UTC',
    user_details: { ann: { full_name: 'Ann' } },
  });
  for (let i = 0; i < 8; i++)
    await ok(base, who.agent, 'POST', '/api/v1/memories', {
      group_id: group,
      message_id: `m${i}`,
      create_time: `2025-01-01T10:0${i}:00.123456Z`,
      sender: i % 2 ? 'ben' : 'ann',
      sender_name: i % 2 ? 'Ben' : 'Ann',
      content: `Point ${i}: the hotel near the harbour costs ${100 + i} euros a night.`,
    });
  await ok(base, who.agent, 'POST', '/api/v1/memories/flush', { group_id: group });

  // KAOS: bob's session with events
  const kaosSession = (
    await ok(base, who.agent, 'POST', '/memory/sessions', { app_name: 'planner', user_id: 'bob' }, KAOS)
  ).session_id as string;
  await ok(
    base,
    who.agent,
    'POST',
    `/memory/sessions/${kaosSession}/events`,
    [
      { event_type: 'user_message', content: 'Which museum opens first?' },
      { event_type: 'tool_call', content: { tool: 'hours', args: { city: 'Lisbon', ratio: 1.5 } } },
    ],
    KAOS,
  );

  // ARK: a session's messages and a relayed chunk, completed
  const arkSession = uniqueName('ark');
  await ok(base, who.agent, 'POST', '/messages', {
    session_id: arkSession,
    query_id: 'q1',
    messages: [
      { role: 'user', content: 'How far is Sintra?' },
      { role: 'assistant', content: 'About 30 km from Lisbon.' },
    ],
  });
  const relayed = await fetch(`${base}/stream/${arkSession}`, {
    method: 'POST',
    headers: { ...who.agent, 'content-type': 'application/x-ndjson' },
    body: `${JSON.stringify({ id: 'c1', choices: [{ index: 0, delta: { content: 'About' } }] })}\n`,
  });
  assert.equal(relayed.status, 200, await relayed.text());
  await ok(base, who.agent, 'POST', `/session/${arkSession}/complete`, {});
  return { group, ms, fork, carols, kaosSession, arkSession, marks };
}

/**
 * Everything made from the writes is there: memories, summaries, every search row with its vector.
 * Each probe joins on the shard column too, so the check runs on a Citus coordinator as well.
 */
export async function settled(db: pg.Client, group: string): Promise<boolean> {
  const { rows } = await db.query<Record<string, number> & { summarized: boolean | null }>(
    `SELECT (SELECT count(*) FROM episodic_memories WHERE conversation_id = $1)::int AS memories,
            (SELECT count(*) FROM memory WHERE conversation_id = $1 AND status = 'completed')::int AS summaries,
            (SELECT count(*) FROM memory WHERE status <> 'completed')::int AS unfinished,
            -- the rolling summary reaches the group's last message: a summary of the messages before
            -- it, with none running, is a moment between two windows, not the end
            ((SELECT max(end_sequence) FROM memory WHERE conversation_id = $1 AND status = 'completed')
              = (SELECT max(seq) FROM messages WHERE conversation_id = $1)) AS summarized,
            (SELECT count(*) FROM episodes WHERE status <> 'extracted')::int AS pending,
            (SELECT count(*) FROM search_items s
              WHERE NOT EXISTS (SELECT 1 FROM search_vectors v
                                 WHERE v.group_key = s.group_key AND v.kind = s.kind AND v.item_id = s.item_id))::int AS unembedded,
            (SELECT count(*) FROM episodic_memories m WHERE superseded_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM search_items s
                               WHERE s.group_key = m.group_key AND s.kind = 'episodic_memory' AND s.item_id = m.id))::int AS unindexed`,
    [group],
  );
  const r = rows[0]!;
  return (
    r.memories! > 0 &&
    r.summaries! > 0 &&
    r.unfinished === 0 &&
    r.summarized === true &&
    r.pending === 0 &&
    r.unembedded === 0 &&
    r.unindexed === 0
  );
}

/**
 * The planner's statistics as autovacuum leaves them once it has run. Taken before each side's
 * answers, so that how a search is planned does not hang on whether autovacuum has analysed the
 * rows just written (the source's vector search once walked its HNSW index after the autovacuum,
 * and lost the nearest turns the target's exact scan found).
 */
export async function analyzed(db: pg.Client): Promise<void> {
  await db.query('ANALYZE');
}

/** The answers of every family's read and search endpoints, as each caller gets them. */
export async function answers(base: string, who: Record<string, Headers>, w: World): Promise<Record<string, unknown>> {
  const reads: Array<[string, Headers, string, string, unknown?, Headers?]> = [
    // EverMemOS
    ['evermemos', who.agent!, 'GET', `/api/v1/memories?group_id=${w.group}&limit=100`],
    ['evermemos', who.agent!, 'GET', `/api/v1/memories?group_id=${w.group}&memory_type=episodic_memory&limit=100`],
    ['evermemos', who.agent!, 'GET', `/api/v1/memories/conversation-meta?group_id=${w.group}`],
    ...['keyword', 'vector', 'hybrid', 'rrf'].map(
      (method) =>
        [
          'evermemos',
          who.agent!,
          'GET',
          `/api/v1/memories/search?query=hotel%20harbour&group_id=${w.group}&retrieve_method=${method}`,
        ] as [string, Headers, string, string],
    ),
    // Memory Agent
    ['memory-agent', who.agent!, 'GET', `/api/v1/summaries?conversation_id=${w.group}`],
    ['memory-agent', who.agent!, 'GET', `/api/v1/context?conversation_id=${w.group}`],
    // memory-service, as the owner and as the member
    ['memory-service', who.bob!, 'GET', '/v1/conversations'],
    ['memory-service', who.bob!, 'GET', `/v1/conversations/${w.ms}`],
    ['memory-service', who.bob!, 'GET', `/v1/conversations/${w.ms}/messages`],
    ['memory-service', who.bob!, 'GET', `/v1/conversations/${w.fork}/messages`],
    ['memory-service', who.bob!, 'GET', `/v1/conversations/${w.ms}/forks`],
    ['memory-service', who.bob!, 'GET', `/v1/conversations/${w.ms}/memberships`],
    ['memory-service', who.dave!, 'GET', '/v1/conversations'],
    ['memory-service', who.dave!, 'GET', `/v1/conversations/${w.ms}/messages`],
    ['memory-service', who.carol!, 'GET', `/v1/conversations/${w.carols}/messages`],
    ['memory-service', who.bob!, 'POST', '/v1/user/search/messages', { query: `${w.marks.bob} Lisbon` }],
    ['memory-service', who.dave!, 'POST', '/v1/user/search/messages', { query: 'museum' }],
    ['admin', who.admin!, 'GET', '/v1/admin/conversations?limit=100'],
    ['admin', who.admin!, 'GET', `/v1/admin/conversations/${w.ms}/memberships`],
    ['admin', who.admin!, 'POST', '/v1/admin/search/messages', { query: 'museum hotel Lisbon', topK: 50 }],
    // KAOS
    ['kaos', who.agent!, 'GET', '/memory/sessions?user_id=bob', undefined, KAOS],
    ['kaos', who.agent!, 'GET', `/memory/sessions/${w.kaosSession}`, undefined, KAOS],
    ['kaos', who.agent!, 'GET', `/memory/sessions/${w.kaosSession}/events`, undefined, KAOS],
    ['kaos', who.agent!, 'GET', `/memory/sessions/${w.kaosSession}/context`, undefined, KAOS],
    ['kaos', who.agent!, 'GET', `/memory/events?session_id=${w.kaosSession}`, undefined, KAOS],
    // ARK
    ['ark', who.agent!, 'GET', `/messages?session_id=${w.arkSession}`],
    ['ark', who.agent!, 'GET', '/sessions'],
  ];
  const out: Record<string, unknown> = {};
  for (const [family, headers, method, path, body, extra] of reads) {
    const res = await call(base, headers, method, path, body, extra);
    assert.equal(res.status, 200, `${family} ${method} ${path}: ${res.text}`);
    out[`${family} ${method} ${path} ${body ? JSON.stringify(body) : ''}`] = res.body;
  }
  return out;
}

/** Row counts of every table but the server's own records of what was done to it. */
export async function rowCounts(db: pg.Client): Promise<Record<string, number>> {
  const { rows: tables } = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
     AND table_name NOT IN ('audit_log', 'bus_journal', 'bus_journal_positions', 'schema_migrations') ORDER BY 1`,
  );
  const counts: Record<string, number> = {};
  for (const { table_name } of tables)
    counts[table_name] = Number((await db.query(`SELECT count(*) AS n FROM "${table_name}"`)).rows[0].n);
  return counts;
}

export async function exportOf(base: string, who: Headers, path: string): Promise<string> {
  const res = await fetch(`${base}${path}`, { headers: who });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
  return text;
}

/**
 * The source's answers and an export of the same state. `settled` cannot tell that the summarizer
 * has rolled its window to the last message, so the answers are taken on both sides of the export,
 * and again until nothing moved between them: the export then holds what the answers describe.
 */
export async function answersAndExport(
  base: string,
  who: Record<string, Headers>,
  w: World,
  path: string,
): Promise<{ before: Record<string, unknown>; exported: string }> {
  for (let attempt = 1; ; attempt++) {
    const before = await answers(base, who, w);
    const exported = await exportOf(base, who.admin!, path);
    if (isDeepStrictEqual(await answers(base, who, w), before)) return { before, exported };
    assert.ok(attempt < 20, 'the source kept changing around its export');
  }
}

export const recordsOf = (ndjson: string) =>
  ndjson
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown> & { kind: string });

export async function importInto(base: string, who: Headers, body: string, query = '') {
  const res = await fetch(`${base}/v1/admin/imports${query}`, {
    method: 'POST',
    headers: { ...who, 'content-type': 'application/x-ndjson' },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The first line of a server export made at `at`, for tests that write an import by hand. */
export function exportHeader(at: string): Record<string, unknown> {
  return {
    kind: 'header',
    format: 'memstream-export',
    version: 1,
    server: 'test',
    exportedAt: at,
    scope: { kind: 'server' },
  };
}
