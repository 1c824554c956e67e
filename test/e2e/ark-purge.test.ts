import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { embeddedMemstream } from '../helpers/embedded.js';
import { uniqueName } from '../helpers/infra.js';
import { TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';

/**
 * ARK's memory service empties itself on `DELETE /messages` (its own test suite does so after
 * every case). Here a purge forgets what the caller may manage, and nothing else: a person's own
 * sessions, never someone else's; an agent key, which reaches every conversation, all of them.
 */
const AGENT_KEY = 'ark-controller-key-0123456789';

async function send(base: string, headers: Record<string, string>, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function listed(base: string, headers: Record<string, string>, session: string): Promise<string[]> {
  const res = await send(base, headers, 'GET', `/messages?session_id=${encodeURIComponent(session)}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body['messages'] as { message: { content: string } }[]).map((m) => m.message.content);
}

test('a purge forgets the sessions its caller manages and leaves everyone else’s', async (t: TestContext) => {
  const base = await embeddedMemstream(t, {
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    AUTH_API_KEYS: `controller:${AGENT_KEY}`,
  });
  const ana = { authorization: `Bearer ${await userToken('ana', { secret: TEST_JWT_SECRET })}` };
  const ben = { authorization: `Bearer ${await userToken('ben', { secret: TEST_JWT_SECRET })}` };
  const agent = { 'x-api-key': AGENT_KEY };
  const [anas, anasOther, bens] = [uniqueName('ana-a'), uniqueName('ana-b'), uniqueName('ben')];
  const write = async (who: Record<string, string>, session: string, content: string) => {
    const res = await send(base, who, 'POST', '/messages', {
      session_id: session,
      query_id: 'q1',
      messages: [{ role: 'user', content }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  await write(ana, anas, 'ana one');
  await write(ana, anasOther, 'ana two');
  await write(ben, bens, 'ben one');

  // A session of someone else's is unknown to ben: naming it purges nothing.
  const stranger = await send(base, ben, 'DELETE', `/messages?session_id=${encodeURIComponent(anas)}`);
  assert.equal(stranger.status, 404, JSON.stringify(stranger.body));
  assert.equal(typeof stranger.body['error'], 'string', "ARK's error shape");
  assert.deepEqual(await listed(base, ana, anas), ['ana one']);

  // One named session only.
  const one = await send(base, ana, 'DELETE', `/messages?session_id=${encodeURIComponent(anasOther)}`);
  assert.equal(one.status, 200, JSON.stringify(one.body));
  assert.equal(one.body['message'], 'Memory purged');
  assert.deepEqual(await listed(base, ana, anasOther), []);
  assert.deepEqual(await listed(base, ana, anas), ['ana one']);

  // Everything ana manages: her sessions go, ben's stays.
  const all = await send(base, ana, 'DELETE', '/messages');
  assert.equal(all.status, 200, JSON.stringify(all.body));
  assert.equal(all.body['message'], 'Memory purged');
  assert.ok(!(all.body['sessions'] as string[]).includes(bens));
  assert.deepEqual(await listed(base, ana, anas), []);
  assert.deepEqual(await listed(base, ben, bens), ['ben one']);

  // A purged session takes new messages as before.
  await write(ana, anas, 'ana again');
  assert.deepEqual(await listed(base, ana, anas), ['ana again']);

  // The agent key reaches every session: its purge empties them all, twice without error.
  for (let i = 0; i < 2; i++) {
    const everything = await send(base, agent, 'DELETE', '/messages');
    assert.equal(everything.status, 200, JSON.stringify(everything.body));
  }
  const left = await send(base, agent, 'GET', '/messages');
  assert.deepEqual(left.body['messages'], []);
});

test('a purge refuses a session id it cannot name, and a session that does not exist is a 404', async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  for (const id of ['', 'a%00b']) {
    const res = await send(base, {}, 'DELETE', `/messages?session_id=${id}`);
    assert.equal(res.status, 400, `${id}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body['code'], 'INVALID_PARAMETER');
  }
  const unknown = await send(base, {}, 'DELETE', '/messages?session_id=never-written');
  assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
});
