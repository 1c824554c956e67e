import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import pg from 'pg';
import { createHashEmbedder } from '@memstream/embedding';
import { createLogger } from '@memstream/logging';
import { PgStore, appendMessages, claimConversation, indexMessages, migrate, type Store } from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';
import { startInProcessReadApi } from '../../../harness/read-api.js';

const log = createLogger({ service: 'test', level: 'silent' });
const SECRET = 'read-api-test-secret-0123456789abcdef';
const AGENT_KEY = 'read-api-agent-key-0123456789';
const DIMENSION = 16;

const LINES = [
  'We booked the cabin by the lake for the long weekend.',
  'Remember the greyhound adoption papers are due on Friday.',
  'The marathon training plan starts in March.',
  'Who brings the tomatoes from the garden?',
];

/** Messages of two groups stored and indexed (keyword and hash vectors), as the converter and the indexer leave them. */
async function seeded(
  t: TestContext,
  readTimeoutMs?: number,
): Promise<{ store: Store; base: string; connectionString: string }> {
  const connectionString = await freshDatabase(t);
  const open = (statementTimeoutMs: number) => {
    const opened = new PgStore({ connectionString, maxConnections: 4, statementTimeoutMs, log });
    t.after(() => opened.close());
    return opened;
  };
  // seeded with the usual timeout; the read API gets `readTimeoutMs` when a test asks for one
  const store = open(10_000);
  await migrate(store, log);
  for (const group of ['g_read', 'g_other']) {
    await appendMessages(
      store,
      LINES.map((content, i) => ({
        message: {
          conversation_id: group,
          message_id: `m${i}`,
          sender_id: `u${i % 2}`,
          sender_name: i % 2 === 0 ? 'Alice' : 'Bob',
          role: 'user' as const,
          content,
          created_at: new Date(Date.UTC(2025, 0, 15, 10, i)),
          refer_list: [],
          metadata: {},
          source_api: 'evermemos' as const,
        },
      })),
    );
    const embedder = createHashEmbedder({ dimension: DIMENSION });
    const vectors = await embedder.embed(LINES, 'document');
    await indexMessages(
      store,
      embedder.model,
      LINES.map((text, i) => ({
        groupKey: group,
        conversationId: group,
        messageId: `m${i}`,
        text,
        embedding: vectors[i]!,
      })),
    );
  }
  const api = await startInProcessReadApi({
    store: readTimeoutMs === undefined ? store : open(readTimeoutMs),
    log,
    jwtSecret: SECRET,
    apiKeys: [{ clientId: 'agent', key: AGENT_KEY }],
    embeddingDimension: DIMENSION,
  });
  t.after(() => api.close());
  return { store, base: api.base, connectionString };
}

const asAgent = { 'x-api-key': AGENT_KEY };
const get = async (url: string, headers: Record<string, string> = asAgent) => {
  const res = await fetch(url, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

test('the read API lists a group newest first with its total, and refuses bad paging in the EverMemOS envelope', async (t) => {
  const { base } = await seeded(t);
  const page = await get(`${base}/api/v1/memories?group_id=g_read&limit=3`);
  assert.equal(page.status, 200);
  assert.deepEqual(
    page.body['result'].memories.map((m: { message_id: string }) => m.message_id),
    ['m3', 'm2', 'm1'],
  );
  assert.deepEqual([page.body['result'].total_count, page.body['result'].has_more], [4, true]);
  const rest = await get(`${base}/api/v1/memories?group_id=g_read&limit=3&offset=3`);
  assert.deepEqual(
    rest.body['result'].memories.map((m: { message_id: string }) => m.message_id),
    ['m0'],
  );

  for (const bad of ['limit=0', 'limit=501', 'offset=-1', 'memory_type=gossip']) {
    const refused = await get(`${base}/api/v1/memories?group_id=g_read&${bad}`);
    assert.equal(refused.status, 400, bad);
    assert.deepEqual([refused.body['status'], refused.body['code']], ['failed', 'INVALID_PARAMETER'], bad);
    assert.equal(refused.body['path'], '/api/v1/memories');
  }
});

test('the read API searches one group by keyword and by vector, and a person finds nothing of a group they are not in', async (t) => {
  const { base } = await seeded(t);
  for (const method of ['keyword', 'vector', 'hybrid']) {
    const found = await get(
      `${base}/api/v1/memories/search?query=${encodeURIComponent('greyhound adoption papers')}&group_id=g_read&retrieve_method=${method}&memory_types=message&top_k=2`,
    );
    assert.equal(found.status, 200, method);
    // a GET search answers as EverMemOS does, grouped by group; best first across them by score
    const groups = found.body['result'].memories as Array<
      Record<string, Array<{ id: string; group_id: string; score: number }>>
    >;
    assert.deepEqual(
      groups.map((g) => Object.keys(g)),
      [['g_read']],
      method,
    );
    const hits = groups.flatMap((g) => Object.values(g).flat()).sort((a, b) => b.score - a.score);
    assert.equal(hits[0]?.id, 'm1', `${method}: the matching message first`);
    assert.ok(
      hits.every((h) => h.group_id === 'g_read' && h.score >= 0 && h.score <= 1),
      method,
    );
  }
  const missing = await get(`${base}/api/v1/memories/search?group_id=g_read`);
  assert.deepEqual([missing.status, missing.body['code']], [400, 'INVALID_PARAMETER']);

  // nobody shared g_read with carol: as a person she finds nothing in it, and no other group leaks in
  const carol = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('carol')
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));
  // across every group she may read (memstream's POST search; EverMemOS's GET must name one)
  const asCarol = await fetch(`${base}/api/v1/memories/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${carol}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'greyhound', retrieve_method: 'keyword' }),
  });
  assert.equal(asCarol.status, 200);
  assert.deepEqual(((await asCarol.json()) as { result: { memories: unknown[] } }).result.memories, []);
  const inTheGroup = await get(
    `${base}/api/v1/memories/search?query=greyhound&group_id=g_read&retrieve_method=keyword`,
    {
      authorization: `Bearer ${carol}`,
    },
  );
  assert.equal(inTheGroup.status, 200);
  assert.deepEqual(inTheGroup.body['result'].memories, []);
  const unnamed = await get(`${base}/api/v1/memories/search?query=greyhound&retrieve_method=keyword`);
  assert.equal(unnamed.status, 400);
  assert.match(unnamed.body['message'], /cannot both be MAGIC_ALL/);
});

test("a NUL in an ARK list filter is refused as a 400 in ARK's shape, not a 500 from the store", async (t) => {
  const { base } = await seeded(t);
  const refused = await get(`${base}/messages?session_id=g_read&query_id=a%00b`);
  assert.equal(refused.status, 400);
  assert.equal(refused.body['code'], 'INVALID_PARAMETER');
  assert.match(String(refused.body['error']), /query_id/);
});

test('memory stats count for a member only what a member may read: an agent-only message is not counted', async (t) => {
  const { store, base } = await seeded(t);
  await appendMessages(store, [
    {
      message: {
        conversation_id: 'g_read',
        message_id: 'm_agents',
        sender_id: 'planner',
        sender_name: 'Planner',
        role: 'assistant' as const,
        content: 'Notes for the agents alone.',
        created_at: new Date(Date.UTC(2025, 0, 15, 11, 0)),
        refer_list: [],
        // memory-service's `visibility: agent`: the store labels it for agents (migration 0012)
        metadata: { ms: { visibility: 'agent', channel: 'history' } },
        source_api: 'memory-service' as const,
      },
    },
  ]);
  await claimConversation(store, 'g_read', 'carol');
  const carol = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('carol')
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));
  const counts = async (headers: Record<string, string>) => {
    const res = await get(`${base}/api/v1/stats/memory?group_id=g_read`, headers);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const r = res.body['result'];
    return [r.messages, r.search_items, r.open_messages];
  };
  const listed = await get(`${base}/api/v1/memories?group_id=g_read&limit=100`, { authorization: `Bearer ${carol}` });
  assert.equal(listed.body['result'].total_count, 4, 'carol lists the four messages everyone may read');
  assert.deepEqual(await counts({ authorization: `Bearer ${carol}` }), [4, 4, 4], 'and no count tells her of a fifth');
  assert.deepEqual(await counts(asAgent), [5, 5, 5], 'an agent counts the message for agents');
});

test('a read the store cuts at its statement timeout answers 503 with Retry-After in each family, never 500', async (t) => {
  const { base, connectionString } = await seeded(t, 400);
  // Another session holds the tables every read below needs: each statement waits on the lock
  // until PostgreSQL cancels it at the read API's statement_timeout (SQLSTATE 57014).
  const holder = new pg.Client({ connectionString });
  holder.on('error', () => {}); // the database is dropped under it when the test ends
  await holder.connect();
  t.after(() => holder.end());
  await holder.query('BEGIN');
  await holder.query('LOCK TABLE search_items, messages IN ACCESS EXCLUSIVE MODE');
  const carol = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('carol')
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));
  const json = { 'content-type': 'application/json' };
  const calls: Array<{
    family: string;
    url: string;
    init: RequestInit;
    shape: (body: any) => unknown;
    expected: unknown;
  }> = [
    {
      family: 'EverMemOS search over everything',
      url: `${base}/api/v1/memories/search`,
      init: {
        method: 'POST',
        headers: { ...asAgent, ...json },
        body: JSON.stringify({ query: 'greyhound', retrieve_method: 'hybrid' }),
      },
      shape: (b) => [b.status, b.code],
      expected: ['failed', 'DEPENDENCY_UNAVAILABLE'],
    },
    {
      family: 'memory-service search',
      url: `${base}/v1/user/search/messages`,
      init: {
        method: 'POST',
        headers: { authorization: `Bearer ${carol}`, ...json },
        body: JSON.stringify({ query: 'greyhound' }),
      },
      shape: (b) => [typeof b.error, b.code],
      expected: ['string', 'service_unavailable'],
    },
    {
      family: 'ARK messages',
      url: `${base}/messages?session_id=g_read`,
      init: { headers: asAgent },
      shape: (b) => [typeof b.error, b.code],
      expected: ['string', 'DEPENDENCY_UNAVAILABLE'],
    },
  ];
  for (const call of calls) {
    const res = await fetch(call.url, call.init);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(res.status, 503, `${call.family}: ${JSON.stringify(body)}`);
    assert.equal(res.headers.get('retry-after'), '5', call.family);
    assert.deepEqual(call.shape(body), call.expected, call.family);
    assert.match(JSON.stringify(body), /did not answer within its time limit/, call.family);
  }
  // once the lock is gone the same calls answer
  await holder.query('ROLLBACK');
  for (const call of calls) {
    const res = await fetch(call.url, call.init);
    assert.equal(res.status, 200, call.family);
  }
});
