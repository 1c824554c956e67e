import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { embeddedMemstream } from '../helpers/embedded.js';
import { waitFor } from '../helpers/infra.js';
import { bearer, TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';

/**
 * Where the memory-service's clients meet the real service's behaviour rather than our reading of
 * its documents (issue 27): the cases its own suite does not reach.
 */
const KEY = 'as-service-key-0123456789';
const OTHER_KEY = 'as-service-other-0123456789';
const AUTH_ENV = { AUTH_JWT_SECRET: TEST_JWT_SECRET, AUTH_API_KEYS: `planner:${KEY},critic:${OTHER_KEY}` };

async function client(t: TestContext) {
  const base = await embeddedMemstream(t, AUTH_ENV);
  const person = async (sub: string) => bearer(await userToken(sub));
  const call = async (who: Record<string, string>, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...who, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
  };
  return { call, person, agent: { 'x-api-key': KEY }, other: { 'x-api-key': OTHER_KEY } };
}

const text = (t: string) => [{ type: 'text', text: t }];

test("an agent listing with no channel gets every channel it may read: history, summaries, its own memory of every epoch, never another agent's", async (t) => {
  const { call, person, agent, other } = await client(t);
  const alice = await person('alice');
  const id = (await call(alice, 'POST', '/v1/conversations', { title: 'channels' })).body.id;
  const post = (who: Record<string, string>, body: unknown) =>
    call(who, 'POST', `/v1/conversations/${id}/messages`, body);
  const first = (await post(alice, { content: text('hello') })).body.id;
  await post(agent, { channel: 'Memory', epoch: 1, content: text('planner epoch 1') });
  await post(agent, { channel: 'MEMORY', epoch: 2, content: text('planner epoch 2') });
  await post(other, { channel: 'memory', content: text("critic's own") });
  const summary = { title: 't', summary: 'so far: hello', untilMessageId: first, summarizedAt: '2026-01-01T00:00:00Z' };
  assert.equal((await call(agent, 'POST', `/v1/conversations/${id}/summaries`, summary)).status, 201);

  const all = await call(agent, 'GET', `/v1/conversations/${id}/messages`);
  assert.deepEqual(
    all.body.data.map((m: { channel: string; content: Array<{ text: string }> }) => [m.channel, m.content[0]!.text]),
    [
      ['history', 'hello'],
      ['memory', 'planner epoch 1'],
      ['memory', 'planner epoch 2'],
      ['summary', 'so far: hello'],
    ],
  );
  const people = await call(alice, 'GET', `/v1/conversations/${id}/messages`);
  assert.deepEqual(
    people.body.data.map((m: { channel: string }) => m.channel),
    ['history'],
    'a person still gets the history alone',
  );
  const refused = await call(alice, 'GET', `/v1/conversations/${id}/messages?channel=Summary`);
  assert.equal(refused.status, 403);
  const bad = await call(agent, 'GET', `/v1/conversations/${id}/messages?channel=diary`);
  assert.deepEqual([bad.status, bad.body.code], [400, 'bad_request']);
});

test("a person's message needs some text (400, stored nowhere); an agent's may be any blocks", async (t) => {
  const { call, person, agent } = await client(t);
  const alice = await person('alice');
  const id = (await call(alice, 'POST', '/v1/conversations', { title: 'empty' })).body.id;
  for (const content of [[], text(''), text('   '), [{ type: 'image', url: 'x' }]]) {
    const refused = await call(alice, 'POST', `/v1/conversations/${id}/messages`, { content });
    assert.deepEqual([refused.status, refused.body.code], [400, 'bad_request'], JSON.stringify(content));
    assert.equal(typeof refused.body.details?.message, 'string');
  }
  assert.equal(
    (await call(agent, 'POST', `/v1/conversations/${id}/messages`, { content: [{ type: 'tool', id: 1 }] })).status,
    201,
  );
  const stored = await call(agent, 'GET', `/v1/conversations/${id}/messages`);
  assert.equal(stored.body.data.length, 1);
});

test("with an agent's key and a person's token, search runs as that person, within their conversations; a bad token beside a key is refused", async (t) => {
  const { call, person, agent } = await client(t);
  const alice = await person('alice');
  const bob = await person('bob');
  const mine = (await call(alice, 'POST', '/v1/conversations', { title: 'a' })).body.id;
  const theirs = (await call(bob, 'POST', '/v1/conversations', { title: 'b' })).body.id;
  await call(alice, 'POST', `/v1/conversations/${mine}/messages`, { content: text('the otter migration report') });
  await call(bob, 'POST', `/v1/conversations/${theirs}/messages`, { content: text('the otter migration secret') });
  await call(agent, 'POST', `/v1/conversations/${mine}/messages`, {
    channel: 'memory',
    content: text('otter migration notes'),
  });
  const found = async (who: Record<string, string>) => {
    const res = await call(who, 'POST', '/v1/user/search/messages', { query: 'otter migration' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data
      .map(
        (h: { message: { conversationId: string; channel: string } }) =>
          `${h.message.conversationId === mine ? 'mine' : 'theirs'}:${h.message.channel}`,
      )
      .sort();
  };
  await waitFor('everything indexed', async () => ((await found(agent)).length === 3 ? true : undefined), 30_000);
  assert.deepEqual(await found({ ...agent, ...alice }), ['mine:history'], "alice's conversations, as alice sees them");
  assert.deepEqual(await found(alice), ['mine:history']);
  const forged = bearer(await userToken('alice', { secret: 'not-the-server-secret-0123456789abcdef' }));
  assert.equal(
    (await call({ ...agent, ...forged }, 'POST', '/v1/user/search/messages', { query: 'otter' })).status,
    401,
  );
});

test('a search hit that shares nothing with the query is no hit: no score-0 results, and no highlights field', async (t) => {
  const { call, person } = await client(t);
  const alice = await person('alice');
  const id = (await call(alice, 'POST', '/v1/conversations', { title: 's' })).body.id;
  await call(alice, 'POST', `/v1/conversations/${id}/messages`, { content: text('quarterly tax filing deadline') });
  await call(alice, 'POST', `/v1/conversations/${id}/messages`, { content: text('bring the blue umbrella') });
  const search = (query: string) => call(alice, 'POST', '/v1/user/search/messages', { query });
  await waitFor('indexed', async () => ((await search('umbrella')).body.data.length === 1 ? true : undefined), 30_000);
  const hits = (await search('tax deadline')).body.data as Array<{
    message: { content: Array<{ text: string }> };
    score: number;
  }>;
  assert.deepEqual(
    hits.map((h) => h.message.content[0]!.text),
    ['quarterly tax filing deadline'],
  );
  assert.ok(hits.every((h) => h.score > 0 && Object.keys(h).sort().join() === 'message,score'));
});

test("memory sync: an agent's epochs are its own; people may not sync; every message must be on the memory channel", async (t) => {
  const { call, person, agent, other } = await client(t);
  const alice = await person('alice');
  const id = (await call(alice, 'POST', '/v1/conversations', { title: 'sync' })).body.id;
  const sync = (who: Record<string, string>, ...texts: string[]) =>
    call(who, 'POST', `/v1/conversations/${id}/memory/messages/sync`, {
      messages: texts.map((x) => ({ channel: 'memory', content: text(x) })),
    });
  const first = await sync(agent, 'a', 'b');
  assert.deepEqual(
    [first.status, first.body.epoch, first.body.noOp, first.body.epochIncremented],
    [200, 1, false, true],
  );
  assert.deepEqual(
    first.body.messages.map((m: { epoch: number }) => m.epoch),
    [1, 1],
  );
  const others = await sync(other, 'x');
  assert.deepEqual([others.body.epoch, others.body.epochIncremented], [1, true], "another agent's first epoch");
  const same = await sync(agent, 'a', 'b');
  assert.deepEqual([same.body.epoch, same.body.noOp, same.body.messages], [1, true, []]);
  const shorter = await sync(agent, 'a');
  assert.deepEqual(
    [shorter.body.epoch, shorter.body.epochIncremented],
    [2, true],
    'dropping a message starts an epoch',
  );
  const latest = await call(agent, 'GET', `/v1/conversations/${id}/messages?channel=memory`);
  assert.deepEqual(
    latest.body.data.map((m: { content: Array<{ text: string }> }) => m.content[0]!.text),
    ['a'],
  );
  assert.equal((await sync(alice, 'a')).status, 403);
  const wrong = await call(agent, 'POST', `/v1/conversations/${id}/memory/messages/sync`, {
    messages: [{ channel: 'history', content: text('a') }],
  });
  assert.deepEqual([wrong.status, wrong.body.code], [400, 'bad_request']);
  const empty = await call(agent, 'POST', `/v1/conversations/${id}/memory/messages/sync`, { messages: [] });
  assert.equal(empty.status, 400);
});
