import assert from 'node:assert/strict';
import { waitFor } from '../helpers/infra.js';

/**
 * KAOS agent memory, as a KAOS agent and its UI use it, against a server started with
 * MEMORY_MAX_SESSIONS = KAOS_LIMITS.sessions and MEMORY_MAX_SESSION_EVENTS = KAOS_LIMITS.events.
 * Each check works in agent namespaces of its own, so they share one server.
 */
export const KAOS_LIMITS = { sessions: 10, events: 5 } as const;
export const KAOS_LIMIT_ENV = {
  MEMORY_MAX_SESSIONS: String(KAOS_LIMITS.sessions),
  MEMORY_MAX_SESSION_EVENTS: String(KAOS_LIMITS.events),
};

export type Headers = Record<string, string>;
interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are checked field by field
}

/** Calls of one caller on one agent's memory. */
export function kaosClient(base: string, credentials: Headers, agent?: string) {
  const headers = { ...credentials, ...(agent ? { 'x-kaos-agent': agent } : {}) };
  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  };
  const ok = async (method: string, path: string, body?: unknown, status = method === 'POST' ? 201 : 200) => {
    const answer = await call(method, path, body);
    assert.equal(answer.status, status, `${method} ${path}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  return {
    call,
    ok,
    create: async (body: Record<string, unknown>) =>
      (await ok('POST', '/memory/sessions', { app_name: 'app', ...body })).session_id as string,
    add: (sessionId: string, events: unknown) =>
      ok('POST', `/memory/sessions/${encodeURIComponent(sessionId)}/events`, events),
    events: async (sessionId: string) =>
      (await ok('GET', `/memory/sessions/${encodeURIComponent(sessionId)}/events`)).events as Array<
        Record<string, unknown>
      >,
    sessions: async (query = '') => (await ok('GET', `/memory/sessions${query}`)).sessions as string[],
  };
}

/** Python's isoformat() of an aware UTC datetime. */
const ISOFORMAT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/;
const userSays = (content: unknown, extra: Record<string, unknown> = {}) => ({
  event_type: 'user_message',
  content,
  ...extra,
});
const agentSays = (content: unknown, extra: Record<string, unknown> = {}) => ({
  event_type: 'agent_response',
  content,
  ...extra,
});

/** KAOS's two envelopes field for field, its LocalMemory operations, limits, idempotency, 404s. */
export async function checkKaosSemantics(base: string, caller: Headers, agent: string): Promise<void> {
  const k = kaosClient(base, caller, agent);

  // Sessions: a generated id in KAOS's shape, a chosen one, get-or-create.
  const generated = await k.create({ user_id: 'u1' });
  assert.match(generated, /^session_[0-9a-f]{12}$/);
  const chosen = await k.create({ user_id: 'u2', session_id: 'chosen' });
  assert.equal(chosen, 'chosen');
  assert.deepEqual(
    await k.ok(
      'POST',
      '/memory/sessions',
      { app_name: 'app', user_id: 'u2', session_id: 'chosen', get_or_create: true },
      200,
    ),
    { session_id: 'chosen', created: false },
  );

  // Events: one or a list; content any JSON, kept with its keys in order; the client's id and time kept.
  const added = await k.add(
    generated,
    userSays('What is 1+2?', {
      event_id: 'event_client01',
      timestamp: '2026-01-02T03:04:05.123456+00:00',
      metadata: { source: 'api' },
    }),
  );
  assert.deepEqual(added, { added: 1, event_ids: ['event_client01'] });
  const list = await k.add(generated, [
    { event_type: 'tool_call', content: { tool: 'calc', arguments: { b: 2, a: 1 } } },
    { event_type: 'tool_result', content: { tool: 'calc', result: 3 } },
    agentSays('The answer is 3'),
  ]);
  assert.equal(list.added, 3);
  for (const id of list.event_ids) assert.match(id, /^event_[0-9a-f]{8}$/);
  // A resend (a client's retry) stores nothing new.
  assert.deepEqual(await k.add(generated, userSays('What is 1+2?', { event_id: 'event_client01' })), {
    added: 0,
    event_ids: ['event_client01'],
  });

  // KAOS's GET /memory/events and GET /memory/sessions, exactly.
  const all = await k.ok('GET', '/memory/events');
  assert.deepEqual(Object.keys(all), ['agent', 'events', 'total']);
  assert.equal(all.agent, agent);
  assert.equal(all.total, 4);
  for (const e of all.events) {
    assert.deepEqual(Object.keys(e), ['event_id', 'timestamp', 'event_type', 'content', 'metadata']);
    assert.match(e.timestamp, ISOFORMAT);
  }
  assert.deepEqual(all.events[0], {
    event_id: 'event_client01',
    timestamp: '2026-01-02T03:04:05.123456+00:00',
    event_type: 'user_message',
    content: 'What is 1+2?',
    metadata: { source: 'api' },
  });
  assert.equal(JSON.stringify(all.events[1].content), '{"tool":"calc","arguments":{"b":2,"a":1}}');
  assert.deepEqual(
    all.events.map((e: { event_type: string }) => e.event_type),
    ['user_message', 'tool_call', 'tool_result', 'agent_response'],
  );
  const tail = await k.ok('GET', '/memory/events?limit=2');
  assert.deepEqual(tail.events, all.events.slice(-2));
  assert.equal(tail.total, 2);
  assert.equal((await k.ok('GET', '/memory/events?limit=5000')).total, 4, 'a limit above 1000 is capped, not refused');
  assert.equal((await k.ok('GET', `/memory/events?session_id=chosen`)).total, 0);
  const sessions = await k.ok('GET', '/memory/sessions');
  assert.deepEqual(sessions, { agent, sessions: [generated, 'chosen'], total: 2 });
  assert.deepEqual(await k.sessions('?user_id=u2'), ['chosen']);

  // get_session: SessionMemory.to_dict.
  const session = await k.ok('GET', `/memory/sessions/${generated}`);
  assert.deepEqual(Object.keys(session), ['session_id', 'user_id', 'app_name', 'events', 'created_at', 'updated_at']);
  assert.equal(session.user_id, 'u1');
  assert.equal(session.events.length, 4);
  assert.match(session.created_at, ISOFORMAT);
  assert.ok(session.updated_at >= session.created_at);

  // Filters and context.
  const typed = await k.ok('GET', `/memory/sessions/${generated}/events?event_types=user_message,agent_response`);
  assert.deepEqual(
    typed.events.map((e: { content: unknown }) => e.content),
    ['What is 1+2?', 'The answer is 3'],
  );
  assert.deepEqual(await k.ok('GET', `/memory/sessions/${generated}/context?max_events=20`), {
    session_id: generated,
    context: 'User: What is 1+2?\nAssistant: The answer is 3',
  });
  assert.equal(
    (await k.ok('GET', `/memory/sessions/${generated}/context?max_events=1`)).context,
    'Assistant: The answer is 3',
  );

  // Stats: the average truncated (4 and 0 events: 2).
  assert.deepEqual(await k.ok('GET', '/memory/stats'), {
    total_sessions: 2,
    total_events: 4,
    avg_events_per_session: 2,
  });

  // The event cap: a session keeps its latest MEMORY_MAX_SESSION_EVENTS.
  const n = KAOS_LIMITS.events + 3;
  await k.add(
    'chosen',
    [...Array(n).keys()].map((i) => userSays(`turn ${i}`)),
  );
  assert.deepEqual(
    (await k.events('chosen')).map((e) => e.content),
    [...Array(n).keys()].slice(-KAOS_LIMITS.events).map((i) => `turn ${i}`),
  );

  // create_session with an id in use starts it over, empty (KAOS replaces the session).
  await k.create({ user_id: 'u2', session_id: 'chosen' });
  assert.deepEqual(await k.events('chosen'), []);

  // 404 where KAOS answers False, None or [].
  const missing = await k.call('POST', '/memory/sessions/nope/events', userSays('hi'));
  assert.equal(missing.status, 404);
  assert.deepEqual(Object.keys(missing.body), ['detail', 'code']);
  assert.equal(missing.body.code, 'RESOURCE_NOT_FOUND');
  assert.equal((await k.call('GET', '/memory/sessions/nope')).status, 404);
  assert.equal((await k.call('GET', '/memory/sessions/nope/events')).status, 404);
  assert.deepEqual(await k.ok('DELETE', '/memory/sessions/nope'), { deleted: false });

  // Agents are separate namespaces: another agent sees none of this.
  const other = kaosClient(base, caller, `${agent}-other`);
  assert.deepEqual(await other.sessions(), []);
  assert.equal((await other.call('GET', `/memory/sessions/${generated}`)).status, 404);

  // delete_session, then cleanup_old_sessions (max_age_hours 0: everything not updated since now).
  assert.deepEqual(await k.ok('DELETE', `/memory/sessions/${generated}`), { deleted: true });
  assert.deepEqual(await k.ok('DELETE', `/memory/sessions/${generated}`), { deleted: false });
  assert.deepEqual(await k.sessions(), ['chosen']);
  assert.deepEqual(await k.ok('POST', '/memory/cleanup', { max_age_hours: 24 }, 200), { cleaned: 0 });
  assert.deepEqual(await k.ok('POST', '/memory/cleanup', { max_age_hours: 0 }, 200), { cleaned: 1 });
  assert.deepEqual(await k.ok('GET', '/memory/stats'), {
    total_sessions: 0,
    total_events: 0,
    avg_events_per_session: 0,
  });
}

/** Over the session limit the least recently updated tenth (at least one) goes before a new one is made. */
export async function checkKaosEviction(bases: readonly string[], caller: Headers, agent: string): Promise<void> {
  const k = kaosClient(bases[0]!, caller, agent);
  const ids = [];
  for (let i = 0; i < KAOS_LIMITS.sessions; i++) ids.push(await k.create({ user_id: 'u', session_id: `s${i}` }));
  // s0 is touched, so s1 is now the least recently updated.
  await k.add('s0', userSays('still here'));
  await k.create({ user_id: 'u', session_id: 'newcomer' });
  const after = await k.sessions();
  assert.equal(after.length, KAOS_LIMITS.sessions);
  assert.ok(!after.includes('s1'), 's1, the least recently updated, was evicted');
  assert.ok(after.includes('s0') && after.includes('newcomer'));

  // Many writers on every replica at once: never more than the limit once writes settle.
  const writers = bases.map((base) => kaosClient(base, caller, agent));
  await Promise.all(
    [...Array(30).keys()].map((i) => writers[i % writers.length]!.create({ user_id: 'u', session_id: `burst${i}` })),
  );
  const settled = await k.sessions();
  assert.ok(
    settled.length <= KAOS_LIMITS.sessions &&
      settled.length >= KAOS_LIMITS.sessions - Math.max(1, Math.floor(KAOS_LIMITS.sessions / 10)),
    `sessions after the burst: ${settled.length}`,
  );
  assert.ok(settled.includes('burst29') || settled.some((s) => s.startsWith('burst')), 'the newest sessions survive');
  assert.equal((await k.ok('GET', '/memory/stats')).total_sessions, settled.length);
}

/** Input a client can send wrong: 400 in the family's shape, nothing stored. */
export async function checkKaosBadInput(base: string, caller: Headers, agent: string): Promise<void> {
  const k = kaosClient(base, caller, agent);
  const id = await k.create({ user_id: 'u', session_id: 'target' });
  await k.add(id, userSays('kept'));
  const refused = async (method: string, path: string, body?: unknown, headers: Headers = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...caller, 'x-kaos-agent': agent, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const answer = (await res.json()) as { detail: string; code: string };
    assert.ok(
      res.status === 400 || res.status === 413,
      `${method} ${path} ${JSON.stringify(body)?.slice(0, 80)}: ${res.status}`,
    );
    assert.deepEqual(Object.keys(answer), ['detail', 'code']);
  };
  await refused('POST', `/memory/sessions/${id}/events`, { event_type: 7, content: 'x' });
  await refused('POST', `/memory/sessions/${id}/events`, [userSays('ok'), { event_type: 'nul\u0000', content: 'x' }]);
  await refused('POST', `/memory/sessions/${id}/events`, userSays('x'.repeat(1024 * 1024)));
  await refused('POST', `/memory/sessions/${id}/events`, { content: 'no type' });
  await refused('POST', `/memory/sessions/${id}/events`, { event_type: 'user_message' });
  await refused('POST', `/memory/sessions/${id}/events`, []);
  await refused('POST', `/memory/sessions/${id}/events`, userSays('bad time', { timestamp: 'yesterday' }));
  await refused(
    'POST',
    `/memory/sessions/${id}/events`,
    userSays('offset the store cannot hold', { timestamp: '2026-04-21T15:49:31.5+20:08' }),
  );
  await refused('POST', `/memory/sessions/${id}/events`, userSays('no year 0', { timestamp: '0000-04-21T15:49:31Z' }));
  await refused('POST', `/memory/sessions/${id}/events`, userSays('nul \u0000 inside'));
  await refused('POST', `/memory/sessions/${id}/events`, '{not json');
  await refused('POST', `/memory/sessions/%00/events`, userSays('x'));
  await refused('POST', '/memory/sessions', { user_id: 'u', session_id: '', app_name: 7 });
  await refused('POST', '/memory/cleanup', { max_age_hours: -1 });
  await refused('POST', '/memory/cleanup', { max_age_hours: 1e300 });
  await refused('GET', '/memory/sessions', undefined, { 'x-kaos-agent': 'a'.repeat(256) });
  await refused('GET', `/memory/sessions/${id}/context?max_events=-1`);
  assert.deepEqual(
    (await k.events(id)).map((e) => e.content),
    ['kept'],
    'nothing refused was stored',
  );
  assert.deepEqual(await k.sessions(), [id]);
}

/** With authentication on: a person's sessions are theirs; agents reach the agent's all. */
export async function checkKaosAccess(
  base: string,
  who: { alice: Headers; bob: Headers; agent: Headers },
  agent: string,
): Promise<void> {
  const alice = kaosClient(base, who.alice, agent);
  const bob = kaosClient(base, who.bob, agent);
  const service = kaosClient(base, who.agent, agent);

  const anonymous = await kaosClient(base, {}, agent).call('GET', '/memory/sessions');
  assert.equal(anonymous.status, 401);
  assert.deepEqual(Object.keys(anonymous.body), ['detail', 'code']);

  const mine = await alice.create({ session_id: 'alice-private' });
  await alice.add(mine, userSays('my secret plan'));
  assert.equal(
    (await alice.call('POST', '/memory/sessions', { app_name: 'app', user_id: 'bob' })).status,
    403,
    'a person creates sessions for themselves',
  );

  // Bob cannot see, write, take over or delete it, and cannot tell it holds anything.
  assert.deepEqual(await bob.sessions(), []);
  assert.equal((await bob.ok('GET', '/memory/events')).total, 0);
  assert.deepEqual(await bob.ok('GET', '/memory/stats'), {
    total_sessions: 0,
    total_events: 0,
    avg_events_per_session: 0,
  });
  assert.equal((await bob.call('GET', `/memory/sessions/${mine}`)).status, 404);
  assert.equal((await bob.call('GET', `/memory/sessions/${mine}/context`)).status, 404);
  assert.equal((await bob.call('POST', `/memory/sessions/${mine}/events`, userSays('injected'))).status, 404);
  assert.equal((await bob.call('POST', '/memory/sessions', { app_name: 'app', session_id: mine })).status, 409);
  assert.equal(
    (await bob.call('POST', '/memory/sessions', { app_name: 'app', session_id: mine, get_or_create: true })).status,
    409,
  );
  assert.deepEqual(await bob.ok('DELETE', `/memory/sessions/${mine}`), { deleted: false });
  assert.deepEqual(await bob.ok('POST', '/memory/cleanup', { max_age_hours: 0 }, 200), { cleaned: 0 });

  // Alice's session is intact; the agent's service key reaches it; the session is also her conversation.
  assert.deepEqual(
    (await alice.events(mine)).map((e) => e.content),
    ['my secret plan'],
  );
  assert.deepEqual(await service.sessions(), [mine]);
  // Its user message is a message of her conversation: her memory-service search finds it, Bob's does not.
  const search = async (headers: Headers) => {
    const res = await fetch(`${base}/v1/user/search/messages`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'secret plan' }),
    });
    return JSON.stringify(await res.json()).includes('my secret plan');
  };
  await waitFor(
    "alice's KAOS message indexed and found by her search",
    async () => ((await search(who.alice)) ? true : undefined),
    60_000,
  );
  assert.equal(await search(who.bob), false);
}

/** MEMORY_ENABLED=false: KAOS's NullMemory. */
export async function checkNullMemory(base: string, caller: Headers): Promise<void> {
  const k = kaosClient(base, caller);
  const id = await k.create({ user_id: 'u' });
  assert.equal(id, 'null-session', "NullMemory's one session id");
  assert.equal(await k.create({ user_id: 'u', session_id: 'given' }), 'given');
  assert.equal((await k.add(id, userSays('dropped'))).added, 1);
  assert.equal((await k.call('GET', `/memory/sessions/${id}`)).status, 404);
  assert.deepEqual(await k.sessions(), []);
  assert.deepEqual(await k.ok('GET', '/memory/events'), { agent: 'agent', events: [], total: 0 });
  assert.deepEqual(await k.ok('GET', '/memory/stats'), {
    total_sessions: 0,
    total_events: 0,
    avg_events_per_session: 0,
  });
  assert.deepEqual(await k.ok('DELETE', `/memory/sessions/${id}`), { deleted: true });
  assert.equal((await k.ok('GET', `/memory/sessions/${id}/context`)).context, '');
  assert.match((await k.add(id, { event_type: 'reasoning', content: 'x' })).event_ids[0], /^null_[0-9a-f]{8}$/);
  assert.equal((await k.call('POST', `/memory/sessions/${id}/events`, { event_type: 7, content: 'x' })).status, 400);
  assert.equal((await k.call('GET', '/memory/events?limit=ten')).status, 422);
}
