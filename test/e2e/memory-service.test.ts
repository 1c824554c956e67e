import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { embeddedMemstream } from '../helpers/embedded.js';
import { uniqueName, waitFor } from '../helpers/infra.js';
import { distributedEnv, startApi, startServices } from '../helpers/distributed.js';
import { bearer, TEST_JWT_SECRET, useCredentials, userToken } from '../../harness/credentials.js';
import { openSse } from '../../harness/sse-client.js';
import { checkConversationScenario, checkDocumentLayout, type People } from './memory-service-contract.js';
import { checkAuthorizationMatrix, USERS, type Credentials } from './memory-service-matrix.js';
import { checkStreamRevocation, checkTransferEndings } from './access-over-time-contract.js';
import { checkOwnershipOffers } from './ownership-offer-contract.js';
import { call as jsonCall } from './export-import-contract.js';

type Conversation = { id?: string; title?: string | null };

const AGENT_KEY = 'agent-key-0123456789abcdef';
const OTHER_AGENT_KEY = 'other-agent-key-0123456789';
const ADMIN_CLIENT_KEY = 'ops-key-0123456789abcdef';
const AUDITOR_CLIENT_KEY = 'audit-key-0123456789abcdef';
const AUTH_ENV = {
  AUTH_JWT_SECRET: TEST_JWT_SECRET,
  AUTH_API_KEYS: `assistant:${AGENT_KEY},other:${OTHER_AGENT_KEY},ops:${ADMIN_CLIENT_KEY},audit:${AUDITOR_CLIENT_KEY}`,
  AUTH_ADMIN_CLIENTS: 'ops',
  AUTH_AUDITOR_CLIENTS: 'audit',
};

async function people(): Promise<People> {
  return {
    alice: bearer(await userToken('alice')),
    bob: bearer(await userToken('bob')),
    carol: bearer(await userToken('carol')),
    agent: { 'x-api-key': AGENT_KEY },
  };
}

test('embedded mode: the memory-service code layout, as its generated clients call it: create, append, fork, share, read, transfer, delete', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  await checkConversationScenario(base, await people());
});

test('embedded mode: the memory-service document layout: people write under /v1/user, agents in bulk under /v1/agent, the user view hides agent-only messages', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  await checkDocumentLayout(base, await people());
  // The memory channel is its agent's in search too: the agent finds it, another agent does not.
  const search = async (key: string) => {
    const res = await fetch(`${base}/v1/user/search/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'likes vegetables' }),
    });
    return ((await res.json()) as { data: Array<{ message: { channel: string } }> }).data.filter(
      (h) => h.message.channel === 'memory',
    ).length;
  };
  await waitFor('the memory message indexed', async () => ((await search(AGENT_KEY)) > 0 ? true : undefined), 30_000);
  assert.equal(await search(OTHER_AGENT_KEY), 0);
});

/** A converter and two API replicas (a gateway and a read API behind an edge) on the test's own topics, database and Redis; the replicas' addresses. */
async function converterAndTwoReplicas(
  t: TestContext,
  name: string,
  env: Record<string, string>,
): Promise<[string, string]> {
  const shared = await distributedEnv(t, name, env);
  await startServices(t, shared, ['converter']);
  return (await startApi(t, shared, 2)) as [string, string];
}

async function matrixCredentials(): Promise<Credentials> {
  const person = async (sub: string) => bearer(await userToken(sub));
  return {
    owner: await person(USERS.owner),
    manager: await person(USERS.manager),
    writer: await person(USERS.writer),
    reader: await person(USERS.reader),
    stranger: await person(USERS.stranger),
    agent: { 'x-api-key': AGENT_KEY },
    // roles as tokens carry them: the `roles` claim, and Keycloak's realm_access.roles
    admin: bearer(await userToken(USERS.admin, { claims: { roles: ['admin'] } })),
    auditor: bearer(await userToken(USERS.auditor, { claims: { realm_access: { roles: ['auditor'] } } })),
    adminClient: { 'x-api-key': ADMIN_CLIENT_KEY },
    auditorClient: { 'x-api-key': AUDITOR_CLIENT_KEY },
    none: {},
    expired: bearer(await userToken(USERS.owner, { expiresInS: -3600 })),
    forged: bearer(await userToken(USERS.owner, { secret: 'not-the-server-secret-0123456789abcdef' })),
  };
}

test('embedded mode: the authorization matrix of every memory-service endpoint', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  await checkAuthorizationMatrix(base, await matrixCredentials());
});

test("embedded mode: a removed member's open streams end within a second, others go on; an ownership offer ends with its recipient's membership or its conversation, and the owner withdraws it", async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  const creds = await matrixCredentials();
  t.diagnostic(
    `slowest stream end: ${await checkStreamRevocation([base], creds, uniqueName('revoke'))} ms after the change`,
  );
  await checkTransferEndings(base, creds);
});

test('embedded mode: /{id}/transfer-ownership offers to anyone, who sees only the offer until accepting; /v1/ownership-transfers offers to members, lists and pages them', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  await checkOwnershipOffers(base, await matrixCredentials());
});

test("distributed mode: a removed member's open streams end within a second on both API replicas, told through Redis; others go on", async (t: TestContext) => {
  const [a, b] = await converterAndTwoReplicas(t, 'revoke', { ...AUTH_ENV, REQUEST_SYNC_TIMEOUT_MS: '15000' });
  const creds = await matrixCredentials();
  t.diagnostic(
    `slowest stream end: ${await checkStreamRevocation([a, b], creds, uniqueName('revoke'))} ms after the change`,
  );
});

test('distributed mode: the scenario and the matrix on the read API, the converter and the indexer, over Kafka, PostgreSQL and Redis', async (t: TestContext) => {
  const shared = await distributedEnv(t, 'ms', {
    ...AUTH_ENV,
    REQUEST_SYNC_TIMEOUT_MS: '15000',
    // search needs the indexer; the read API embeds queries with the same (cheap) model
    EMBEDDING_PROVIDER: 'hash',
    INDEXER_GROUP_ID: uniqueName('indexer'),
  });
  await startServices(t, shared, ['converter', 'indexer']);
  const [readApi] = (await startApi(t, shared)) as [string];
  await checkConversationScenario(readApi, await people());
  await checkAuthorizationMatrix(readApi, await matrixCredentials());
  await checkTransferEndings(readApi, await matrixCredentials());
  await checkOwnershipOffers(readApi, await matrixCredentials());
});

test('embedded mode: bad input to the memory-service gets a 4xx in its error shape, never a 500, and stores nothing', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  const alice = bearer(await userToken('alice'));
  const post = async (path: string, body: unknown, method = 'POST') => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...alice, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { error: string; code: string } };
  };
  const created = await post('/v1/conversations', { title: 'target' });
  const id = (created.body as unknown as { id: string }).id;
  const cases: Array<[string, string, unknown, string?]> = [
    ['array body', '/v1/conversations', []],
    ['malformed JSON', '/v1/conversations', '{"title": '],
    ['title of the wrong type', '/v1/conversations', { title: 5 }],
    ['NUL in a title', '/v1/conversations', { title: 'a\u0000b' }],
    ['NUL in a metadata key', '/v1/conversations', { metadata: { 'k\u0000': 1 } }],
    ['content not an array', `/v1/conversations/${id}/messages`, { content: 'text' }],
    [
      'NUL inside a content block',
      `/v1/conversations/${id}/messages`,
      { content: [{ type: 'text', text: 'x\u0000y' }] },
    ],
    ['an unknown channel', `/v1/conversations/${id}/messages`, { channel: 'gossip', content: [] }],
    ['a negative epoch', `/v1/conversations/${id}/messages`, { channel: 'memory', epoch: -1, content: [] }],
    ['an unknown access level', `/v1/conversations/${id}/memberships`, { userId: 'bob', accessLevel: 'god' }],
    ['a NUL user id', `/v1/conversations/${id}/memberships`, { userId: 'b\u0000', accessLevel: 'reader' }],
    ['an empty user message', `/v1/user/conversations/${id}/messages`, { content: '' }],
    ['no messages for the agent API', `/v1/agent/conversations/${id}/messages`, { messages: [] }],
    ['a transfer without a recipient', `/v1/conversations/${id}/transfer-ownership`, {}],
    ['an offer without a conversation', '/v1/ownership-transfers', { newOwnerUserId: 'bob' }],
    [
      'an offer of a NUL conversation id',
      '/v1/ownership-transfers',
      { conversationId: 'a\u0000', newOwnerUserId: 'b' },
    ],
    [
      'an offer of a conversation nobody has',
      '/v1/ownership-transfers',
      { conversationId: 'nope', newOwnerUserId: 'b' },
    ],
    ['a NUL in a path id', `/v1/conversations/a%00b/messages`, { content: [] }],
    ['an id longer than 255', `/v1/conversations/${'x'.repeat(300)}/messages`, { content: [] }],
  ];
  for (const [what, path, body] of cases) {
    const res = await post(path, body);
    assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${JSON.stringify(res.body)}`);
    assert.equal(typeof res.body.error, 'string', what);
    assert.equal(
      res.body.code,
      res.status === 404 ? 'not_found' : res.status === 403 ? 'forbidden' : 'bad_request',
      `${what}: ${JSON.stringify(res.body)}`,
    );
  }
  for (const query of ['limit=0', 'limit=abc', 'limit=100000', 'epoch=-2', 'channel=%00']) {
    const res = await fetch(`${base}/v1/conversations/${id}/messages?${query}`, { headers: alice });
    assert.equal(res.status, 400, query);
  }
  // a well-formed cursor naming no message of the conversation names nothing there: not found, as the document allows
  const unknownCursor = await fetch(`${base}/v1/conversations/${id}/messages?after=no-such-message`, {
    headers: alice,
  });
  assert.equal(unknownCursor.status, 404);
  const list = await fetch(`${base}/v1/conversations?query=%00`, { headers: alice });
  assert.equal(list.status, 400);
  const messages = await fetch(`${base}/v1/conversations/${id}/messages`, { headers: alice }).then(
    (r) => r.json() as Promise<{ data: unknown[] }>,
  );
  assert.deepEqual(messages.data, [], 'nothing refused was stored');
  const conversations = await fetch(`${base}/v1/conversations`, { headers: alice }).then(
    (r) => r.json() as Promise<{ data: unknown[] }>,
  );
  assert.equal(conversations.data.length, 1);
});

test("embedded mode: agent summaries set the title, stay out of the history people list and are found by the members' search; the agent context starts at the newest summary and pages by message id", async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  const alice = bearer(await userToken('alice'));
  const agent = { 'x-api-key': AGENT_KEY };
  const call = async <T>(who: Record<string, string>, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...who, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const id = (await call<{ id: string }>(alice, 'POST', '/v1/conversations', { title: 'untitled' })).body.id;
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) {
    ids.push(
      (
        await call<{ id: string }>(alice, 'POST', `/v1/conversations/${id}/messages`, {
          content: [{ type: 'text', text: `turn ${i} about the kiwi harvest` }],
        })
      ).body.id,
    );
  }
  const summary = {
    title: 'Kiwi harvest',
    summary: 'Turns 0-3: the harvest is late.',
    untilMessageId: ids[3],
    summarizedAt: new Date().toISOString(),
  };
  assert.equal(
    (await call(alice, 'POST', `/v1/conversations/${id}/summaries`, summary)).status,
    403,
    'people do not write summaries',
  );
  assert.equal(
    (await call(agent, 'POST', `/v1/conversations/${id}/summaries`, { ...summary, untilMessageId: 'nope' })).status,
    404,
    'a summary up to a message the conversation does not hold names nothing there',
  );
  const stored = await call<{ channel: string }>(agent, 'POST', `/v1/agent/conversations/${id}/summaries`, summary);
  assert.deepEqual([stored.status, stored.body.channel], [201, 'summary']);
  assert.equal((await call<{ title: string }>(alice, 'GET', `/v1/conversations/${id}`)).body.title, 'Kiwi harvest');
  const history = await call<{ data: unknown[] }>(alice, 'GET', `/v1/conversations/${id}/messages`);
  assert.equal(history.body.data.length, 6, 'the summary is not in the history people read');
  // the memory-service lets people search summaries: alice, a member, finds it; bob, who is not, does not
  const search = async (who: Record<string, string>) =>
    (
      await call<{ data: Array<{ message: { channel: string } }> }>(who, 'POST', '/v1/user/search/messages', {
        query: 'harvest is late',
      })
    ).body.data.filter((h) => h.message.channel === 'summary').length;
  await waitFor('the summary found by a member', async () => ((await search(alice)) === 1 ? true : undefined), 30_000);
  assert.equal(await search(bearer(await userToken('bob'))), 0);
  assert.equal((await call(alice, 'GET', `/v1/agent/conversations/${id}/context`)).status, 403);

  type Context = {
    messages: Array<{ id: string; channel: string; content: string }>;
    nextAfterMessageId: string | null;
  };
  const first = await call<Context>(agent, 'GET', `/v1/agent/conversations/${id}/context?limit=2`);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.deepEqual(
    first.body.messages.map((m) => m.channel),
    ['summary', 'history'],
  );
  assert.equal(first.body.messages[0]!.content, 'Turns 0-3: the harvest is late.');
  assert.deepEqual([first.body.messages[1]!.id, first.body.nextAfterMessageId], [ids[4], ids[4]]);
  const next = await call<Context>(
    agent,
    'GET',
    `/v1/agent/conversations/${id}/context?afterMessageId=${ids[4]}&limit=10`,
  );
  assert.deepEqual([next.body.messages.map((m) => m.id), next.body.nextAfterMessageId], [[ids[5]], null]);
  const whole = await call<Context>(agent, 'GET', `/v1/agent/conversations/${id}/context?limit=50`);
  assert.deepEqual(
    whole.body.messages.map((m) => m.id).slice(1),
    [ids[4], ids[5]],
    'the summary stands in for the turns it covers',
  );
});

test('embedded mode: a conversation an agent starts on its memory channel is not titled by that memory, so neither its owner nor another agent reads it in any listing', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  const alice = bearer(await userToken('alice'));
  const agent = { 'x-api-key': AGENT_KEY };
  const otherAgent = { 'x-api-key': OTHER_AGENT_KEY };
  const call = async (who: Record<string, string>, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...who, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  const id = uniqueName('memory-first');
  const started = await call(agent, 'POST', `/v1/conversations/${id}/messages`, {
    channel: 'memory',
    userId: 'alice',
    content: [{ type: 'text', text: 'meadow: alice dislikes her manager' }],
  });
  assert.equal(started.status, 201, started.text);
  // The conversation is alice's (the agent named her), and the memory stays the agent's.
  const reads: Array<[string, Record<string, string>, string]> = [
    ['the owner gets the conversation', alice, `/v1/conversations/${id}`],
    ['the owner lists her conversations', alice, '/v1/conversations'],
    ["the owner's document layout", alice, `/v1/user/conversations/${id}`],
    ['the console lists the owner her conversations', alice, '/v1/console/conversations'],
    ['the owner exports her data', alice, '/v1/me/export'],
    ['another agent gets the conversation', otherAgent, `/v1/conversations/${id}`],
    ['another agent lists the forks', otherAgent, `/v1/conversations/${id}/forks`],
    ['the console lists another agent every conversation', otherAgent, '/v1/console/conversations'],
  ];
  for (const [what, who, path] of reads) {
    const res = await call(who, 'GET', path);
    assert.equal(res.status, 200, `${what}: ${res.text}`);
    assert.ok(res.text.includes(id), `${what}: the conversation is there`);
    assert.ok(!res.text.includes('meadow'), `${what}: the agent's memory let through: ${res.text}`);
  }
  const own = await call(agent, 'GET', `/v1/conversations/${id}/messages?channel=memory`);
  assert.ok(own.text.includes('meadow'), 'the agent still reads its own memory');
});

test('embedded mode: an untitled conversation takes its title from the first history message appended to it, never from a memory', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  const alice = bearer(await userToken('alice'));
  const agent = { 'x-api-key': AGENT_KEY };
  const call = (who: Record<string, string>, method: string, path: string, body?: unknown) =>
    jsonCall(base, who, method, path, body) as Promise<{ status: number; text: string; body: Conversation }>;
  const titleOf = async (id: string) => {
    const got = await call(alice, 'GET', `/v1/conversations/${id}`);
    assert.equal(got.status, 200, got.text);
    return got.body.title ?? null;
  };
  const say = async (who: Record<string, string>, id: string, channel: string, text: string) => {
    const res = await call(who, 'POST', `/v1/conversations/${id}/messages`, {
      channel,
      ...(who === agent ? { userId: 'alice' } : {}),
      content: [{ type: 'text', text }],
    });
    assert.equal(res.status, 201, res.text);
  };

  // Begun on the agent's memory channel: untitled, and a second memory leaves it so.
  const id = uniqueName('memory-then-history');
  await say(agent, id, 'memory', 'meadow: alice dislikes her manager');
  await say(agent, id, 'memory', 'meadow: alice is looking for a new job');
  assert.equal(await titleOf(id), null, 'no title from a memory');
  // An empty history block gives no title; the first history text does, by the first-message rule.
  const empty = await call(agent, 'POST', `/v1/conversations/${id}/messages`, { content: [{ type: 'image' }] });
  assert.equal(empty.status, 201, empty.text);
  assert.equal(await titleOf(id), null);
  await say(alice, id, 'history', '  Plan   the Lisbon offsite for the whole team in May, flights first ');
  assert.equal(await titleOf(id), 'Plan the Lisbon offsite for the whole te');
  await say(alice, id, 'history', 'Book the hotel too');
  await say(agent, id, 'memory', 'meadow: alice prefers window seats');
  assert.equal(await titleOf(id), 'Plan the Lisbon offsite for the whole te', 'a title once given stays');

  // Created without a title, as the memory-service does: titled by its first history message.
  const bare = await call(alice, 'POST', '/v1/conversations', {});
  assert.equal(bare.status, 201, bare.text);
  await say(alice, bare.body.id!, 'history', 'Quarterly numbers');
  assert.equal(await titleOf(bare.body.id!), 'Quarterly numbers');
  // A member's words never title it (the title would outlive their erasure); the owner's do.
  const shared = await call(alice, 'POST', '/v1/conversations', {});
  assert.equal(shared.status, 201, shared.text);
  const added = await call(alice, 'POST', `/v1/conversations/${shared.body.id}/memberships`, {
    userId: 'bob',
    accessLevel: 'writer',
  });
  assert.equal(added.status, 201, added.text);
  await say(bearer(await userToken('bob')), shared.body.id!, 'history', 'Bob asks about his salary');
  assert.equal(await titleOf(shared.body.id!), null, "a member's message gives no title");
  await say(alice, shared.body.id!, 'history', 'Team plans');
  assert.equal(await titleOf(shared.body.id!), 'Team plans');
  // A title given at creation is kept.
  const named = await call(alice, 'POST', '/v1/conversations', { title: 'Budget' });
  await say(alice, named.body.id!, 'history', 'Quarterly numbers');
  assert.equal(await titleOf(named.body.id!), 'Budget');

  const listed = await call(alice, 'GET', '/v1/conversations');
  assert.ok(!listed.text.includes('meadow'), `a memory became a title: ${listed.text}`);
});

/** Records tokens, reads the response stream, cancels: the resumer's contract against one or two addresses. */
async function checkResumer(
  recordAt: string,
  readAt: string,
  readAgainAt: string,
  who: Record<string, string>,
  agent: Record<string, string>,
): Promise<void> {
  const post = async (base: string, path: string, body?: unknown, headers = agent) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const created = await post(recordAt, '/v1/conversations', { title: 'streamed' }, who).then(
    (r) => r.json() as Promise<{ id: string }>,
  );
  const id = created.id;
  assert.equal(
    (await fetch(`${readAt}/v1/conversations/${id}/response`, { headers: who })).status,
    404,
    'no response yet',
  );
  assert.equal((await post(recordAt, `/v1/conversations/${id}/response`, { tokens: ['Lis', 'bon '] })).status, 200);

  // A reader on the other address gets what was recorded, then drops its connection mid-response.
  useCredentials(readAt, who);
  const early = await openSse(`${readAt}/v1/conversations/${id}/response`);
  await waitFor(
    'the first tokens replayed',
    async () => (early.frames.filter((f) => f.event === 'token').length >= 2 ? true : undefined),
    10_000,
  );
  early.close();
  assert.equal(
    (await post(recordAt, `/v1/conversations/${id}/response`, { tokens: ['in ', 'May'], done: true })).status,
    200,
  );

  // Reconnecting (anywhere) replays the whole response from its start, then its end.
  useCredentials(readAgainAt, who);
  const again = await openSse(`${readAgainAt}/v1/conversations/${id}/response`);
  await again.ended;
  assert.deepEqual(
    again.frames.map((f) => (f.event === 'token' ? (f.data as { text: string }).text : f.event)),
    ['Lis', 'bon ', 'in ', 'May', 'done'],
  );

  // A new response, cancelled by a writer: readers see it end, the recorder's next call is refused.
  assert.equal((await post(recordAt, `/v1/conversations/${id}/response`, { tokens: ['Por'] })).status, 200);
  const live = await openSse(`${readAt}/v1/conversations/${id}/response`);
  assert.equal((await post(readAgainAt, `/v1/conversations/${id}/cancel-response`, undefined, who)).status, 200);
  await live.ended;
  assert.deepEqual(
    live.frames.map((f) => f.event),
    ['token', 'cancelled'],
  );
  const refused = await post(recordAt, `/v1/conversations/${id}/response`, { tokens: ['to'] });
  assert.deepEqual([refused.status, ((await refused.json()) as { code: string }).code], [409, 'conflict']);
  assert.equal(
    (await post(readAt, `/v1/conversations/${id}/cancel-response`, undefined, who)).status,
    404,
    'nothing left to cancel',
  );
  useCredentials(readAt, {});
  useCredentials(readAgainAt, {});
}

test('embedded mode: the response resumer replays a response after a dropped connection and follows it live; a writer cancels it; disabled, it answers 409', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  await checkResumer(base, base, base, bearer(await userToken('alice')), { 'x-api-key': AGENT_KEY });
  const off = await embeddedMemstream(t, { ...AUTH_ENV, RESPONSE_RESUMER: 'none' });
  const res = await fetch(`${off}/v1/conversations/any/cancel-response`, {
    method: 'POST',
    headers: { 'x-api-key': AGENT_KEY },
  });
  assert.deepEqual([res.status, ((await res.json()) as { code: string }).code], [409, 'conflict']);
});

test('distributed mode: a response recorded on one API replica is replayed and followed on another, through Redis', async (t: TestContext) => {
  const [a, b] = await converterAndTwoReplicas(t, 'resume', AUTH_ENV);
  await checkResumer(a, b, a, bearer(await userToken('alice')), { 'x-api-key': AGENT_KEY });
});
