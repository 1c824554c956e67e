import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { embeddedMemstream } from '../helpers/embedded.js';
import { kaosClient } from './kaos-contract.js';

/**
 * What KAOS's own agent and its agent server do to a memory, over HTTP: the event types its agent
 * writes, the sizes its tools return, the numbers a Python client sends, the ids a path cannot
 * carry, and GET /memory/events read as its FastAPI server reads it.
 */
async function raw(base: string, method: string, path: string, body?: string) {
  // node:http sends the path as given: fetch and undici resolve %2E segments as a browser does.
  const { hostname, port } = new URL(base);
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(
      {
        hostname,
        port,
        path,
        method,
        headers: {
          'x-kaos-agent': 'kaos-worker',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (part: string) => (text += part));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test("a KAOS worker's delegated task, a failing sub-agent and a 500 KB tool result are kept; past one Kafka record's worth is refused, named", async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  const k = kaosClient(base, {}, 'kaos-worker');
  const session = await k.create({ user_id: 'user', session_id: 'delegated' });
  // What KAOS's Agent writes when a coordinator delegates to it, and when its own sub-agent fails.
  await k.add(session, { event_type: 'task_delegation_received', content: 'Summarise the report' });
  await k.add(session, { event_type: 'delegation_request', content: { agent: 'reader', task: 'read it' } });
  await k.add(session, { event_type: 'delegation_error', content: { agent: 'reader', error: 'HTTP 503' } });
  const big = 'r'.repeat(500 * 1024);
  await k.add(session, { event_type: 'tool_result', content: { tool: 'fetch', result: big } });
  const events = await k.events(session);
  assert.deepEqual(
    events.map((e) => e.event_type),
    ['task_delegation_received', 'delegation_request', 'delegation_error', 'tool_result'],
  );
  assert.equal((events[3]!.content as { result: string }).result.length, big.length);

  const tooBig = await k.call('POST', `/memory/sessions/${session}/events`, {
    event_type: 'tool_result',
    content: 'x'.repeat(1024 * 1024),
  });
  assert.equal(tooBig.status, 413);
  assert.match(tooBig.body.detail, /content of event 0 is \d+ bytes of JSON; an event holds at most 1048576/);
  assert.equal((await k.events(session)).length, 4, 'nothing refused was stored');
});

test('numbers come back as a Python client wrote them, and the context text renders content as Python prints it', async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  const k = kaosClient(base, {}, 'kaos-worker');
  const session = await k.create({ user_id: 'user', session_id: 'numbers' });
  // json.dumps of {"price": 8.0, "id": 2**64 + 1, "zero": -0.0, "tiny": 1e-07}: JSON.parse would give 8, 18446744073709552000, 0.
  const content = '{"price": 8.0, "id": 18446744073709551617, "zero": -0.0, "tiny": 1e-07, "ok": true, "none": null}';
  const metadata = '{"score": 1.0}';
  const posted = await raw(
    base,
    'POST',
    `/memory/sessions/${session}/events`,
    `{"event_type": "user_message", "content": ${content}, "metadata": ${metadata}}`,
  );
  assert.equal(posted.status, 201, posted.text);
  for (const path of [`/memory/sessions/${session}/events`, `/memory/sessions/${session}`, '/memory/events']) {
    const read = await raw(base, 'GET', path);
    assert.ok(read.text.includes(`"content":${content}`), `${path}: ${read.text}`);
    assert.ok(read.text.includes(`"metadata":${metadata}`), `${path}: ${read.text}`);
  }
  const context = await k.ok('GET', `/memory/sessions/${session}/context`);
  assert.equal(
    context.context,
    "User: {'price': 8.0, 'id': 18446744073709551617, 'zero': -0.0, 'tiny': 1e-07, 'ok': True, 'none': None}",
  );
});

test('ids a path cannot carry: `.` and `..` (spelled %2E or as is) are sessions that do not exist; the longest ids work, a longer one is refused naming the field only', async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  const k = kaosClient(base, {}, 'kaos-worker');
  for (const id of ['%2E', '%2E%2E', '.', '..']) {
    for (const path of [`/memory/sessions/${id}`, `/memory/sessions/${id}/events`, `/memory/sessions/${id}/context`]) {
      const read = await raw(base, 'GET', path);
      assert.equal(read.status, 404, `${path}: ${read.text}`);
    }
    const added = await raw(
      base,
      'POST',
      `/memory/sessions/${id}/events`,
      '{"event_type": "user_message", "content": "lost?"}',
    );
    assert.equal(added.status, 404, added.text);
    assert.equal(JSON.parse(added.text).code, 'RESOURCE_NOT_FOUND');
    assert.deepEqual(JSON.parse((await raw(base, 'DELETE', `/memory/sessions/${id}`)).text), { deleted: false });
  }
  const dot = await k.call('POST', '/memory/sessions', { user_id: 'u', session_id: '.' });
  assert.equal(dot.status, 400);
  assert.match(dot.body.detail, /session_id.*not \. or \.\./);

  // The longest id the common rule admits works with the longest agent name; past it the refusal names the field only.
  const longAgent = kaosClient(base, {}, 'a'.repeat(255));
  const longest = 's'.repeat(255);
  assert.equal(await longAgent.create({ user_id: 'u', session_id: longest }), longest);
  await longAgent.add(longest, { event_type: 'user_message', content: 'fits' });
  assert.equal((await longAgent.events(longest)).length, 1);
  const tooLong = await longAgent.call('POST', '/memory/sessions', { user_id: 'u', session_id: 's'.repeat(256) });
  assert.equal(tooLong.status, 400);
  assert.match(tooLong.body.detail, /session_id/);
  assert.doesNotMatch(tooLong.body.detail, /group_id|kaos:|envelope|data\./);
});

test("GET /memory/events reads limit and session_id as KAOS's FastAPI server does", async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  const k = kaosClient(base, {}, 'kaos-worker');
  const one = await k.create({ user_id: 'u', session_id: 'one' });
  const two = await k.create({ user_id: 'u', session_id: 'two' });
  for (const [session, texts] of [
    [one, ['a', 'b', 'c']],
    [two, ['d', 'e']],
  ] as const)
    await k.add(
      session,
      texts.map((content) => ({ event_type: 'user_message', content })),
    );
  const contents = async (query: string) => {
    const answer = await k.ok('GET', `/memory/events${query}`);
    assert.equal(answer.total, answer.events.length);
    return answer.events.map((e: { content: string }) => e.content);
  };
  assert.deepEqual(await contents(''), ['a', 'b', 'c', 'd', 'e']);
  assert.deepEqual(await contents('?limit=2'), ['d', 'e']);
  assert.deepEqual(await contents('?limit=0'), ['a', 'b', 'c', 'd', 'e'], 'events[-0:] is every event');
  assert.deepEqual(await contents('?limit=-2'), ['c', 'd', 'e'], 'events[2:]: all but the first two');
  assert.deepEqual(await contents('?limit=-9'), []);
  assert.deepEqual(await contents('?limit=1&limit=3'), ['c', 'd', 'e'], 'a repeated limit: the last counts');
  assert.deepEqual(await contents('?limit=%201_0%20'), ['a', 'b', 'c', 'd', 'e'], "pydantic's integer syntax");
  assert.deepEqual(await contents('?limit=2.0'), ['d', 'e']);
  assert.deepEqual(await contents('?session_id='), ['a', 'b', 'c', 'd', 'e'], 'an empty session_id is every session');
  assert.deepEqual(await contents('?session_id=one&limit=1'), ['c']);
  for (const bad of ['ten', '2.5', '', '1e2']) {
    const answer = await k.call('GET', `/memory/events?limit=${bad}`);
    assert.equal(answer.status, 422, bad);
    assert.deepEqual(answer.body, {
      detail: [
        {
          type: 'int_parsing',
          loc: ['query', 'limit'],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input: bad,
        },
      ],
    });
  }
});

test("the limits a client built its memory with (LocalMemory's max_sessions, max_events_per_session) hold for its agent", async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  const limits = { 'x-kaos-max-sessions': '3', 'x-kaos-max-session-events': '2' };
  const k = kaosClient(base, limits, 'kaos-small');
  for (const id of ['s1', 's2', 's3', 's4']) await k.create({ user_id: 'u', session_id: id });
  assert.deepEqual(await k.sessions(), ['s2', 's3', 's4'], 'at 3 sessions the oldest tenth (at least one) goes');
  await k.add(
    's4',
    ['x', 'y', 'z'].map((content) => ({ event_type: 'user_message', content })),
  );
  assert.deepEqual(
    (await k.events('s4')).map((e) => e.content),
    ['y', 'z'],
  );
  assert.equal(
    (await kaosClient(base, { 'x-kaos-max-sessions': '0' }, 'kaos-small').call('GET', '/memory/sessions')).status,
    200,
  );
  const bad = await kaosClient(base, { 'x-kaos-max-sessions': '0' }, 'kaos-small').call('POST', '/memory/sessions', {
    user_id: 'u',
  });
  assert.equal(bad.status, 400);
  assert.match(bad.body.detail, /x-kaos-max-sessions/);
});
