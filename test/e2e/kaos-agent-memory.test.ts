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
async function raw(base: string, method: string, path: string, body?: string, agent = 'kaos-worker') {
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
          'x-kaos-agent': agent,
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

/** JSON text as a Python client wrote it, sent as it is. */
class PythonJson {
  constructor(readonly text: string) {}
}

/**
 * One KAOS agent's memory calls, as `MemstreamMemory` sends them for KAOS's `Agent` (43f4851,
 * agent/client.py): each event made by `create_event` (its id and time travel with it) and posted
 * alone, the answer checked before the agent goes on, every call recorded in order.
 */
function agentMemory(base: string, agent: string) {
  const k = kaosClient(base, {}, agent);
  const calls: string[] = [];
  let made = 0;
  const path = (session: string) => `/memory/sessions/${encodeURIComponent(session)}`;
  return {
    calls,
    getOrCreate: async (session: string) => {
      calls.push('POST /memory/sessions get_or_create');
      const answer = await k.call('POST', '/memory/sessions', {
        app_name: 'agent',
        user_id: 'user',
        session_id: session,
        get_or_create: true,
      });
      assert.ok(answer.status === 201 || answer.status === 200, JSON.stringify(answer.body));
      return answer.body.session_id as string;
    },
    create: async () => {
      calls.push('POST /memory/sessions');
      return (await k.ok('POST', '/memory/sessions', { app_name: 'agent', user_id: 'user' })).session_id as string;
    },
    /** `content` as the JSON text Python's json.dumps wrote (its floats and big integers), or a value. */
    addEvent: async (session: string, eventType: string, content: unknown) => {
      calls.push(`POST events ${eventType}`);
      const eventId = `event_${(made++).toString(16).padStart(8, '0')}`;
      const timestamp = new Date().toISOString().replace('Z', '000+00:00');
      const text = content instanceof PythonJson ? content.text : JSON.stringify(content);
      const answer = await k.call(
        'POST',
        `${path(session)}/events`,
        `{"event_id": "${eventId}", "timestamp": "${timestamp}", "event_type": "${eventType}", "content": ${text}, "metadata": {}}`,
      );
      // LocalMemory.add_event answers True; anything else fails the agent's turn (the worker's
      // answer, or the coordinator's after its delegation failed).
      assert.equal(answer.status, 201, `${eventType}: ${JSON.stringify(answer.body).slice(0, 300)}`);
      assert.deepEqual(answer.body.event_ids, [eventId]);
    },
    listSessions: async () => {
      calls.push('GET /memory/sessions');
      return (await k.ok('GET', '/memory/sessions')).sessions as string[];
    },
    sessionEvents: async (session: string) => {
      calls.push('GET events');
      return (await k.ok('GET', `${path(session)}/events`)).events as Array<{ event_type: string; content: unknown }>;
    },
  };
}

test("a coordinator's turn whose sub-agent is down, call by call as KAOS's Agent makes it, then the reads of its server and its tests", async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  const coordinator = agentMemory(base, 'coordinator');
  const task = 'Summarise the quarterly report';
  const error = 'Agent reader unavailable at http://reader.kaos:8000';
  // process_message(text, session_id): the session, the user's words; the model asks to delegate;
  // delegate_to_sub_agent records the request, RemoteAgent raises, the error is recorded and handed
  // back to the model, whose next answer ends the turn.
  const session = await coordinator.getOrCreate('chat-7');
  await coordinator.addEvent(session, 'user_message', 'Please summarise the quarterly report');
  await coordinator.addEvent(session, 'delegation_request', { agent: 'reader', task });
  await coordinator.addEvent(session, 'delegation_error', { agent: 'reader', error });
  await coordinator.addEvent(session, 'agent_response', `The reader could not help: [Delegation failed: ${error}]`);

  // KAOS's tests read the first session's events; its server's GET /memory/events reads each session's.
  const sessions = await coordinator.listSessions();
  assert.deepEqual(sessions, ['chat-7']);
  const events = await coordinator.sessionEvents(sessions[0]!);
  assert.deepEqual(
    events.map((e) => e.event_type),
    ['user_message', 'delegation_request', 'delegation_error', 'agent_response'],
  );
  assert.deepEqual(events[2]!.content, { agent: 'reader', error });
  const served = await kaosClient(base, {}, 'coordinator').ok('GET', '/memory/events');
  assert.equal(served.agent, 'coordinator');
  assert.deepEqual(
    served.events.map((e: { event_type: string }) => e.event_type),
    events.map((e) => e.event_type),
  );

  // The next turn of the same chat finds the session and goes on.
  assert.equal(await coordinator.getOrCreate('chat-7'), session);
  await coordinator.addEvent(session, 'user_message', 'Try again?');
  assert.equal((await coordinator.sessionEvents(session)).length, 5);
  assert.deepEqual(coordinator.calls, [
    'POST /memory/sessions get_or_create',
    'POST events user_message',
    'POST events delegation_request',
    'POST events delegation_error',
    'POST events agent_response',
    'GET /memory/sessions',
    'GET events',
    'POST /memory/sessions get_or_create',
    'POST events user_message',
    'GET events',
  ]);
});

test("a worker's delegated turn with a tool call in Python's numbers and a 500 KB result, call by call as KAOS's Agent makes it", async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  const worker = agentMemory(base, 'worker');
  // The coordinator's /v1/chat/completions call: its context, then the task. process_message
  // makes a session of its own, records each user message and the task, and skips the rest.
  const session = await worker.create();
  await worker.addEvent(session, 'user_message', 'Please summarise the quarterly report');
  await worker.addEvent(session, 'task_delegation_received', 'Summarise the quarterly report');
  // json.dumps of {"tool": ..., "arguments": {"quarter": 3, "threshold": 8.0, "account": 2**64 + 1, "delta": -0.0}}
  const call =
    '{"tool": "fetch_report", "arguments": {"quarter": 3, "threshold": 8.0, "account": 18446744073709551617, "delta": -0.0}}';
  await worker.addEvent(session, 'tool_call', new PythonJson(call));
  const page = `<html>${'q'.repeat(500 * 1024)}</html>`;
  await worker.addEvent(session, 'tool_result', { tool: 'fetch_report', result: page });
  await worker.addEvent(session, 'agent_response', 'Revenue grew in Q3.');

  const events = await worker.sessionEvents(session);
  assert.deepEqual(
    events.map((e) => e.event_type),
    ['user_message', 'task_delegation_received', 'tool_call', 'tool_result', 'agent_response'],
  );
  assert.equal((events[3]!.content as { result: string }).result, page);
  const read = await raw(base, 'GET', `/memory/sessions/${session}/events?event_types=tool_call`, undefined, 'worker');
  assert.ok(read.text.includes(`"content":${call}`), read.text);
  assert.deepEqual(worker.calls, [
    'POST /memory/sessions',
    'POST events user_message',
    'POST events task_delegation_received',
    'POST events tool_call',
    'POST events tool_result',
    'POST events agent_response',
    'GET events',
  ]);
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
