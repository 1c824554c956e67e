import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { Redis } from 'ioredis';
import { sseFrames } from '@memstream/client';
import { embeddedMemstream } from '../helpers/embedded.js';
import { freshDatabase, infra, uniqueName, waitFor } from '../helpers/infra.js';
import { adminCall, memoryServiceCall } from '../helpers/memory-service-client.js';
import { residueOf, tableCount } from '../helpers/residue.js';
import { bearer, TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';

const AGENT_KEY = 'assistant-key-0123456789abcdef';
const AUTH_ENV = { AUTH_JWT_SECRET: TEST_JWT_SECRET, AUTH_API_KEYS: `assistant:${AGENT_KEY}` };

interface Caller {
  readonly headers: Record<string, string>;
}

async function send(base: string, who: Caller, method: string, path: string, body?: unknown, extra = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...who.headers, ...extra, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/**
 * Writes a conversation in each family, every one carrying its family's marker word, and
 * soft-deletes it the family's way (or through the admin API where the family has no soft
 * delete). Returns the conversations' ids and markers.
 */
async function writeAndDeleteInEveryFamily(
  db: pg.Client,
  base: string,
  who: { agent: Caller; person: Caller; admin: Caller },
  tag: string,
): Promise<{ ids: string[]; markers: string[] }> {
  const m = (family: string) => `${family}${tag}`;
  // memory-service: a conversation with a message, a fork, a share and a response stream in progress
  const created = await memoryServiceCall<{ id: string }>(base, 'createConversation', {
    headers: who.person.headers,
    body: { title: `plans ${m('msword')}` },
  });
  const ms = created.body.id;
  const first = await memoryServiceCall<{ id: string }>(base, 'appendConversationMessage', {
    headers: who.person.headers,
    params: { conversationId: ms },
    body: { content: [{ type: 'text', text: `the ${m('msword')} plan` }] },
  });
  assert.equal(first.status, 201);
  await memoryServiceCall(base, 'appendConversationMessage', {
    headers: who.person.headers,
    params: { conversationId: ms },
    body: { content: [{ type: 'text', text: `and the second ${m('msword')} step` }] },
  });
  const fork = await memoryServiceCall<{ id: string }>(base, 'forkConversationAtMessage', {
    headers: who.person.headers,
    params: { conversationId: ms, messageId: first.body.id },
    body: {},
  });
  assert.equal(fork.status, 201, JSON.stringify(fork.body));
  await memoryServiceCall(base, 'appendConversationMessage', {
    headers: who.person.headers,
    params: { conversationId: fork.body.id },
    body: { content: [{ type: 'text', text: `forked ${m('msword')}` }] },
  });
  await memoryServiceCall(base, 'shareConversation', {
    headers: who.person.headers,
    params: { conversationId: ms },
    body: { userId: 'dave', accessLevel: 'reader' },
  });
  await send(base, who.agent, 'POST', `/v1/conversations/${ms}/response`, { tokens: [`tok ${m('msword')}`] });

  // EverMemOS: a group's messages, its metadata, an episode and its memories
  const group = uniqueName('evm');
  await send(base, who.agent, 'POST', '/api/v1/memories/conversation-meta', {
    group_id: group,
    version: '1.0',
    scene: 'group_chat',
    scene_desc: {},
    name: `team ${m('evmword')}`,
    description: 'a group',
    created_at: '2025-01-01T00:00:00Z',
    default_timezone: 'UTC',
    user_details: {},
  });
  for (let i = 0; i < 3; i++)
    await send(base, who.agent, 'POST', '/api/v1/memories', {
      group_id: group,
      message_id: `m${i}`,
      create_time: `2025-01-01T10:0${i}:00Z`,
      sender: `user_${i % 2}`,
      content: `We talked about ${m('evmword')} number ${i}.`,
    });
  await send(base, who.agent, 'POST', '/api/v1/memories/flush', { group_id: group });

  // ARK: a session's messages and relayed chunks
  const session = uniqueName('ark');
  await send(base, who.agent, 'POST', '/messages', {
    session_id: session,
    messages: [{ role: 'user', content: `ark says ${m('arkword')}` }],
  });
  const chunk = JSON.stringify({ id: session, choices: [{ index: 0, delta: { content: m('arkword') } }] });
  const relayed = await fetch(`${base}/stream/${session}`, {
    method: 'POST',
    headers: { ...who.agent.headers, 'content-type': 'application/x-ndjson' },
    body: chunk,
  });
  assert.equal(relayed.status, 200);

  // KAOS: a session with events, deleted the KAOS way (its conversation is soft-deleted)
  const kaos = { 'x-kaos-agent': 'agent-e' };
  const kaosSession = (
    await send(base, who.agent, 'POST', '/memory/sessions', { app_name: 'app', user_id: 'u1' }, kaos)
  ).session_id as string;
  await send(
    base,
    who.agent,
    'POST',
    `/memory/sessions/${kaosSession}/events`,
    { event_type: 'user_message', content: `kaos ${m('kaosword')}` },
    kaos,
  );
  const kaosConversation = (
    await db.query<{ conversation_id: string }>('SELECT conversation_id FROM kaos_sessions WHERE session_id = $1', [
      kaosSession,
    ])
  ).rows[0]!.conversation_id;

  // memory-service and KAOS delete softly; EverMemOS and ARK have no soft delete: the admin API's
  assert.equal(
    (
      await memoryServiceCall(base, 'deleteConversation', {
        headers: who.person.headers,
        params: { conversationId: ms },
      })
    ).status,
    204,
  );
  await send(base, who.agent, 'DELETE', `/memory/sessions/${kaosSession}`, undefined, kaos);
  for (const id of [group, session])
    assert.equal(
      (await adminCall(base, 'adminDeleteConversation', { headers: who.admin.headers, params: { id }, body: {} }))
        .status,
      204,
    );
  return {
    ids: [ms, fork.body.id, group, session, kaosConversation],
    markers: ['msword', 'evmword', 'arkword', 'kaosword'].map(m),
  };
}

test('eviction removes what was soft-deleted before the period in every family, from every table, the search index and Redis', async (t: TestContext) => {
  const databaseUrl = await freshDatabase(t);
  const base = await embeddedMemstream(t, { ...AUTH_ENV, DATABASE_URL: databaseUrl, REDIS_URL: infra().redisUrl });
  const db = new pg.Client({ connectionString: databaseUrl });
  db.on('error', () => undefined);
  await db.connect();
  t.after(() => db.end().catch(() => undefined));
  const redis = new Redis(infra().redisUrl);
  t.after(() => redis.quit());
  const who = {
    agent: { headers: { 'x-api-key': AGENT_KEY } },
    person: { headers: bearer(await userToken('bob')) },
    admin: { headers: bearer(await userToken('alice', { claims: { roles: ['admin'] } })) },
  };

  const old = await writeAndDeleteInEveryFamily(db, base, who, uniqueName('old').slice(4));
  const recent = await writeAndDeleteInEveryFamily(db, base, who, uniqueName('new').slice(4));
  // what the consumers make from them is there before the eviction (search rows, memories)
  const made = async (marker: string, table: string) => (await residueOf(db, [marker])).some((r) => r.table === table);
  await waitFor('the memory-service messages indexed', () => made(old.markers[0]!, 'search_items'), 60_000);
  await waitFor('the EverMemOS memories made', () => made(old.markers[1]!, 'episodic_memories'), 60_000);
  assert.equal(await redis.exists(`memstream:response:${old.ids[0]}`), 1, 'the response stream is in Redis');
  // "soft-deleted 100 days ago", as the memory-service's own tests put it, and so written before that
  await db.query(
    `UPDATE messages SET stored_at = now() - interval '101 days' WHERE conversation_id = ANY($1::text[])`,
    [old.ids],
  );
  await db.query(`UPDATE conversations SET deleted_at = now() - interval '100 days' WHERE id = ANY($1::text[])`, [
    old.ids,
  ]);
  // The recent ones are compared whole afterwards, so everything made from them must be there
  // first: their memories, and each memory's search row (the indexer adds it after extraction).
  await waitFor(
    'the recent memories made and indexed',
    async () => {
      const { rows } = await db.query<{ memories: number; indexed: number }>(
        `SELECT (SELECT count(*) FROM episodic_memories WHERE conversation_id = ANY($1::text[]))::int AS memories,
                (SELECT count(*) FROM search_items WHERE kind = 'episodic_memory' AND conversation_id = ANY($1::text[]))::int AS indexed`,
        [recent.ids],
      );
      return rows[0]!.memories > 0 && rows[0]!.indexed === rows[0]!.memories;
    },
    60_000,
  );
  // (the bus journal is left out: it is a backlog the bus trims on its own, whatever is evicted)
  const recentBefore = await residueOf(db, recent.markers, ['bus_journal']);

  const res = await fetch(`${base}/v1/admin/evict`, {
    method: 'POST',
    headers: { ...who.admin.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      retentionPeriod: 'P90D',
      resourceTypes: ['conversation_groups'],
      justification: 'retention',
    }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const progress: number[] = [];
  for await (const frame of sseFrames(res)) {
    assert.notEqual(frame.event, 'error', frame.data);
    progress.push((JSON.parse(frame.data) as { progress: number }).progress);
  }
  assert.equal(progress.at(-1), 100, `progress ${progress.join(', ')}`);
  assert.deepEqual(
    progress,
    [...progress].sort((a, b) => a - b),
    'progress only rises',
  );

  // nothing of the old ones in any table (their ids stay in the audit log by design: it names targets)
  t.diagnostic(`scanned ${await tableCount(db)} tables`);
  await waitFor(
    'nothing of the evicted conversations in any table',
    async () => {
      const left = [...(await residueOf(db, old.markers)), ...(await residueOf(db, old.ids, ['audit_log']))];
      if (left.length > 0) t.diagnostic(`left: ${JSON.stringify(left)}`);
      return left.length === 0;
    },
    10_000,
  );
  assert.equal(await redis.exists(`memstream:response:${old.ids[0]}`), 0, 'the response stream is gone from Redis');
  const found = await adminCall<{ data: Array<{ message: { conversationId: string } }> }>(base, 'adminSearchMessages', {
    headers: who.admin.headers,
    // the words of both: a hit holds one of the query's words, so the recent ones are found by theirs
    body: { query: [...old.markers, ...recent.markers].join(' '), includeDeleted: true, topK: 100 },
  });
  assert.ok(found.body.data.length > 0, 'the search still finds the recent ones');
  assert.deepEqual(
    found.body.data.filter((h) => old.ids.includes(h.message.conversationId)),
    [],
    'the search index finds nothing of the evicted ones',
  );
  // the ones deleted 0 days ago stay whole
  assert.deepEqual(await residueOf(db, recent.markers, ['bus_journal']), recentBefore);
  assert.equal(await redis.exists(`memstream:response:${recent.ids[0]}`), 1);
});
