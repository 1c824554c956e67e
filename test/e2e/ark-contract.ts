import assert from 'node:assert/strict';
import { waitFor } from '../helpers/infra.js';
import { call } from '../helpers/evermemos-client.js';
import { contents, markers, openSse } from '../../harness/sse-client.js';
import { credentialsFor } from '../../harness/credentials.js';

type Messages = {
  messages: Array<{
    id: number;
    timestamp: string;
    created_at: string;
    session_id: string;
    query_id: string;
    message: Record<string, unknown>;
  }>;
  total: number;
  limit: number;
  offset: number;
};

const say = (content: string) => ({ role: 'user', content });

/**
 * ARK's memory API through HTTP: `apis` are read API replicas (one address in the embedded mode,
 * two processes in the distributed one); writes go to the first, streams are read on all.
 * `speaker` is the `name` of the batch's named message: an agent's (a relay names anyone), or the
 * person's own id when the contract runs with their token (they speak only as themselves).
 */
export async function checkArkContract(
  apis: readonly string[],
  prefix: string,
  speaker = 'vision-agent',
): Promise<void> {
  const [api, other = apis[0]!] = apis as [string, string | undefined];
  const session = `${prefix}-s1`;

  // Rejections name the problem and store nothing.
  const bad: Array<[unknown, RegExp]> = [
    ['{"session_id": ', /Invalid request|JSON/i],
    [{ messages: [say('x')] }, /session_id is required/],
    // The common id rule admits free-form ids (spaces, slashes, dots); only what cannot travel in a path is refused.
    [{ session_id: '..', messages: [say('x')] }, /session_id.*not blank, not \. or \.\./],
    [{ session_id: session }, /messages array is required/],
    [{ session_id: session, messages: 'hi' }, /messages array is required/],
    [{ session_id: session, messages: [] }, /must not be empty/],
    [
      { session_id: session, messages: [say('ok'), { content: 'no role' }] },
      /messages\[1\] must be an object with a string role/,
    ],
    [{ session_id: session, messages: [say('ok'), 'text'] }, /messages\[1\] must be an object with a string role/],
  ];
  for (const [body, pattern] of bad) {
    const res = await call<{ error: string }>(api, 'POST', '/messages', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.body.error, pattern);
  }
  assert.equal((await call(api, 'GET', `/stream/${session}`)).status, 404, 'unknown session without wait is 404');
  assert.equal((await call(api, 'POST', `/session/${session}/complete`)).status, 404);

  // A stream opened before the session exists receives its first messages.
  const early = await openSse(`${other}/stream/${session}?wait-for-session=true&timeout=20s`);
  assert.equal(early.status, 200);

  // A batch of every message shape, stored whole and in order, visible at once.
  const batch = [
    { role: 'system', content: 'You are helpful.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image_url', image_url: { url: 'https://x/y.png' } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'a cat' },
    { role: 'assistant', content: 'A cat.', name: speaker },
  ];
  const posted = await call<{ status: string }>(api, 'POST', '/messages', {
    session_id: session,
    query_id: 'q1',
    messages: batch,
  });
  assert.equal(posted.status, 200, JSON.stringify(posted.body));
  const read = await call<Messages>(api, 'GET', `/messages?session_id=${session}`);
  assert.equal(read.body.total, 5, 'read-your-writes');
  assert.deepEqual(
    read.body.messages.map((m) => m.message),
    batch,
    'stored whole, in order',
  );
  assert.ok(
    read.body.messages.every(
      (m) =>
        m.session_id === session &&
        m.query_id === 'q1' &&
        typeof m.id === 'number' &&
        !Number.isNaN(Date.parse(m.timestamp)),
    ),
  );
  await waitFor('the early stream got the first messages', async () => contents(early).length >= 5);
  assert.deepEqual(contents(early).slice(0, 5), [
    'You are helpful.',
    'What is in this picture?',
    null,
    'a cat',
    'A cat.',
  ]);
  const toolFrame = early.frames[2]!.data as {
    id: string;
    object: string;
    model: string;
    choices: Array<{ delta: { role: string; tool_calls?: unknown } }>;
  };
  assert.deepEqual(
    [toolFrame.id, toolFrame.object, toolFrame.model, toolFrame.choices[0]!.delta.role],
    [session, 'chat.completion.chunk', 'memory-service', 'assistant'],
  );
  assert.deepEqual(toolFrame.choices[0]!.delta.tool_calls, batch[2]!.tool_calls);

  // Without a limit a session is read whole (past 50); without session_id the default page is 50.
  const many = Array.from({ length: 60 }, (_, i) => say(`bulk ${i}`));
  assert.equal(
    (await call(api, 'POST', '/messages', { session_id: session, query_id: 'q2', messages: many })).status,
    200,
  );
  const whole = await call<Messages>(api, 'GET', `/messages?session_id=${session}`);
  assert.equal(whole.body.messages.length, 65);
  const q2 = await call<Messages>(api, 'GET', `/messages?session_id=${session}&query_id=q2&limit=10&offset=5`);
  assert.deepEqual(
    [q2.body.total, q2.body.limit, q2.body.offset, q2.body.messages[0]!.message['content']],
    [60, 10, 5, 'bulk 5'],
  );
  const all = await call<Messages>(api, 'GET', '/messages');
  assert.equal(all.body.limit, 50);
  assert.ok(all.body.messages.length <= 50 && all.body.total >= 65);
  const sessions = await call<{ sessions: string[] }>(other, 'GET', '/sessions');
  assert.ok(Array.isArray(sessions.body.sessions) && sessions.body.sessions.includes(session));

  // Readers on both replicas, one replaying from the beginning, both get live messages and chunks.
  const replaying = await openSse(`${api}/stream/${session}?from-beginning=true`);
  const live = await openSse(`${other}/stream/${session}`);
  await waitFor('replay done', async () => markers(replaying).includes('[LIVE_MODE]'));
  assert.equal(contents(replaying).length, 65, 'history first');
  const crowd = await Promise.all(
    Array.from({ length: 100 }, () => openSse(`${apis[Math.floor(Math.random() * apis.length)]!}/stream/${session}`)),
  );
  // no wait: a stream's headers are sent only once its live channel is subscribed
  for (const n of [1, 2, 3])
    assert.equal(
      (await call(api, 'POST', '/messages', { session_id: session, messages: [say(`live ${n}`)] })).status,
      200,
    );
  const chunkLines = [1, 2]
    .map((n) =>
      JSON.stringify({
        id: session,
        object: 'chat.completion.chunk',
        model: 'agent',
        choices: [{ index: 0, delta: { content: `tok${n}` } }],
      }),
    )
    .join('\n');
  const relayed = await fetch(`${api}/stream/${session}`, {
    method: 'POST',
    headers: { ...credentialsFor(api), 'content-type': 'application/x-ndjson' },
    body: chunkLines,
  });
  assert.equal(relayed.status, 200);
  const expectedLive = ['live 1', 'live 2', 'live 3', 'tok1', 'tok2'];
  for (const reader of [live, ...crowd])
    await waitFor('live frames on every stream', async () => contents(reader).length >= 5);
  for (const [i, reader] of [live, ...crowd].entries()) assert.deepEqual(contents(reader), expectedLive, `stream ${i}`);
  await waitFor('replaying reader got them too', async () => contents(replaying).length >= 70);
  assert.deepEqual(contents(replaying).slice(65), expectedLive, 'no duplicates between replay and live');

  // A reader that reconnects from the beginning misses nothing, chunks included.
  early.close();
  const again = await openSse(`${other}/stream/${session}?from-beginning=true`);
  await waitFor('reconnected replay', async () => markers(again).includes('[LIVE_MODE]'));
  assert.deepEqual(contents(again), [...contents(replaying).slice(0, 68), 'tok1', 'tok2']);

  // Completion reaches every open stream on every replica, in the spec's order, and closes it.
  const done = await call<{ status: string; session: string; query: string }>(
    api,
    'POST',
    `/session/${session}/complete`,
  );
  assert.deepEqual(done.body, { status: 'completed', session, query: session });
  for (const reader of [replaying, live, again, ...crowd]) {
    await Promise.race([
      reader.ended,
      new Promise((_, rej) => setTimeout(() => rej(new Error('stream not closed')), 10_000)),
    ]);
    const tail = reader.frames.slice(-3);
    assert.equal((tail[0]!.data as { choices: Array<{ finish_reason: string }> }).choices[0]!.finish_reason, 'stop');
    assert.deepEqual(
      tail.slice(1).map((f) => f.data),
      ['[STREAM_END]', '[DONE]'],
    );
  }
  assert.equal(
    (await call<{ status: string }>(other, 'POST', `/session/${session}/complete`)).body.status,
    'already_completed',
  );

  // Waiting for a session that never comes ends with an error frame and [DONE].
  const never = await openSse(`${api}/stream/${prefix}-never?wait-for-session=true&timeout=500ms`);
  await never.ended;
  assert.equal(never.frames[0]!.event, 'error');
  assert.deepEqual(markers(never), ['[DONE]']);
  assert.equal((await call(api, 'GET', `/stream/${session}?timeout=soon`)).status, 400);
}
