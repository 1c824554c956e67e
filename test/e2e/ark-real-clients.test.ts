import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { embeddedMemstream } from '../helpers/embedded.js';
import { uniqueName, waitFor } from '../helpers/infra.js';
import { call } from '../helpers/evermemos-client.js';

/**
 * ARK's own clients against memstream: the controller's relay (one chunked POST held open for the
 * whole query, then the completion at once) and ark-api's reader, whose lines reach the OpenAI
 * SDK unchanged.
 */

const chunkOf = (query: string, n: number) =>
  JSON.stringify({
    id: `chatcmpl-${query}`,
    object: 'chat.completion.chunk',
    created: 1_764_000_000,
    model: 'gpt-4o',
    choices: [{ index: 0, delta: { content: `token ${n} ` }, finish_reason: null }],
    ark: { query, session: 'chat-1', agent: 'weather' },
  });

/** The controller's relay: a chunked POST whose body is written a line at a time, as its pipe is. */
function openRelay(base: string, query: string): { req: ClientRequest; answered: Promise<number> } {
  const { hostname, port } = new URL(base);
  let req!: ClientRequest;
  const answered = new Promise<number>((resolve, reject) => {
    req = httpRequest(
      {
        hostname,
        port,
        method: 'POST',
        path: `/stream/${encodeURIComponent(query)}`,
        headers: { 'content-type': 'application/x-ndjson', 'transfer-encoding': 'chunked' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
  });
  req.flushHeaders();
  return { req, answered };
}

/**
 * ark-api's proxy and the OpenAI SDK's stream reader, as they handle our bytes: ark-api forwards
 * each non-blank line followed by a blank line; the SDK dispatches an event at each blank line,
 * stops at `[DONE]` and reads every other event's data as JSON (an `event:` line alone, or a
 * marker, is an event whose data is not JSON: the SDK fails on it).
 */
async function* throughArkApiToOpenAi(body: ReadableStream<Uint8Array>): AsyncGenerator<Record<string, unknown>> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    pending += value;
    let end: number;
    while ((end = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, end).replace(/\r$/, '');
      pending = pending.slice(end + 1);
      if (line.trim() === '') continue; // ark-api skips blank lines, then adds "\n\n" after each line
      if (line.startsWith(':')) continue; // an SSE comment: the SDK's decoder ignores it
      assert.ok(line.startsWith('data: '), `the SDK would get an event without JSON data: ${line}`);
      const data = line.slice('data: '.length);
      if (data.startsWith('[DONE]')) return;
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(data) as Record<string, unknown>;
      } catch {
        assert.fail(`the SDK fails with JSONDecodeError on: ${data}`);
      }
      yield parsed;
    }
  }
}

test("ARK's controller: each chunk of one long relay reaches a reader before the next is written; the completion posted as the relay closes ends the stream after every chunk", async (t: TestContext) => {
  const base = await embeddedMemstream(t, { SSE_HEARTBEAT_MS: '60000' });
  const query = `${uniqueName('openai-query')}.v1`; // Kubernetes names may hold dots
  const reader = await fetch(`${base}/stream/${encodeURIComponent(query)}?from-beginning=true&wait-for-query=30`);
  assert.equal(reader.status, 200);
  const received: Array<{ content: string; at: number }> = [];
  let done = false;
  const reading = (async () => {
    for await (const chunk of throughArkApiToOpenAi(reader.body!)) {
      const choices = chunk['choices'] as Array<{ delta: { content: string } }>;
      received.push({ content: choices[0]!.delta.content, at: performance.now() });
    }
    done = true;
  })();

  const relay = openRelay(base, query);
  const writtenAt: number[] = [];
  const CHUNKS = 8;
  for (let n = 0; n < CHUNKS; n++) {
    writtenAt.push(performance.now());
    relay.req.write(`${chunkOf(query, n)}\n`);
    // The next chunk is written only once this one reached the reader: a relay read whole fails here.
    await waitFor(`chunk ${n} relayed while the POST is still open`, async () => received.length > n || undefined);
  }
  const delays = received.map((r, n) => r.at - writtenAt[n]!);
  t.diagnostic(`chunk delays (ms): ${delays.map((d) => d.toFixed(1)).join(', ')}`);

  // The last chunk, then the controller closes its pipe and posts the completion at once,
  // without waiting for the relay's answer: the completion must not overtake that chunk.
  relay.req.end(`${chunkOf(query, CHUNKS)}\n`);
  const completed = await call<{ status: string }>(base, 'POST', `/stream/${encodeURIComponent(query)}/complete`, {});
  assert.equal(completed.status, 200, JSON.stringify(completed.body));
  assert.equal(completed.body.status, 'completed');
  assert.equal(await relay.answered, 200);
  await reading;
  assert.ok(done, 'the reader got [DONE]');
  assert.deepEqual(
    received.map((r) => r.content),
    Array.from({ length: CHUNKS + 1 }, (_, n) => `token ${n} `),
  );

  // A query whose only chunk is still on its way when its completion comes: completed, not 404.
  const brief = `${query}-brief`;
  const briefReader = await fetch(`${base}/stream/${encodeURIComponent(brief)}?from-beginning=true&wait-for-query=30`);
  const briefRelay = openRelay(base, brief);
  briefRelay.req.end(`${chunkOf(brief, 0)}\n`);
  const briefDone = await call<{ status: string }>(base, 'POST', `/stream/${encodeURIComponent(brief)}/complete`, {});
  assert.deepEqual([briefDone.status, briefDone.body.status], [200, 'completed']);
  const briefChunks: unknown[] = [];
  for await (const chunk of throughArkApiToOpenAi(briefReader.body!)) briefChunks.push(chunk);
  assert.equal(briefChunks.length, 1, 'the chunk, then [DONE]');

  // A stream that only relayed chunks is a query's, not a session: ARK's service lists sessions from messages.
  const sessions = await call<{ sessions: string[] }>(base, 'GET', '/sessions');
  assert.ok(!sessions.body.sessions.includes(query), 'a streamed query name is not a session');
});

test("ark-api's reader: subscribes before the query exists, reads only JSON or [DONE], gets the timeout as an error object, and an error chunk ends the stream", async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  const query = uniqueName('openai-query');

  // Waiting for a query that never starts: the error object, then [DONE].
  const never = await fetch(`${base}/stream/${query}-never?from-beginning=true&wait-for-query=1`);
  assert.equal(never.status, 200);
  const frames: Array<Record<string, unknown>> = [];
  for await (const f of throughArkApiToOpenAi(never.body!)) frames.push(f);
  assert.deepEqual(frames, [
    {
      error: {
        message: 'Request timeout waiting for streaming query response',
        type: 'timeout_error',
        code: 'timeout',
      },
    },
  ]);

  // A refusal before the stream starts comes as ark-api parses it: {"error": {"message", "type", "code"}}.
  const refused = await fetch(`${base}/stream/${query}?from-beginning=true&wait-for-query=soon`);
  assert.equal(refused.status, 400);
  const error = ((await refused.json()) as { error: Record<string, unknown> }).error;
  assert.deepEqual(Object.keys(error), ['message', 'type', 'code']);
  assert.equal(error['type'], 'invalid_request_error');

  // A reader from the beginning, before the query exists; the agent's chunks, then its error.
  const reader = await fetch(`${base}/stream/${query}?from-beginning=true&wait-for-query=30`);
  const got: Array<Record<string, unknown>> = [];
  const reading = (async () => {
    for await (const f of throughArkApiToOpenAi(reader.body!)) got.push(f);
  })();
  const failure = { error: { message: 'model quota exceeded', type: 'server_error', code: 'model_error' } };
  const relayed = await fetch(`${base}/stream/${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: `${chunkOf(query, 0)}\n${JSON.stringify(failure)}\n`,
  });
  assert.equal(relayed.status, 200);
  await reading; // ends: the error chunk is followed by [DONE]
  assert.equal(got.length, 2);
  assert.deepEqual(got[1], failure);

  // A reader that arrives later replays the same, and ends the same way.
  const late = await fetch(`${base}/stream/${query}?from-beginning=true&wait-for-query=30`);
  const replayed: Array<Record<string, unknown>> = [];
  for await (const f of throughArkApiToOpenAi(late.body!)) replayed.push(f);
  assert.deepEqual(replayed, got);
});

interface ArkPage {
  messages: Array<{ id: number; session_id: string; sequence: number; message: { content: string } }>;
}

/** What ARK's reference suite checks after each purge, on a server that already held messages. */
test("ARK's sequence: 1, 2, 3... over what a read selects, again from 1 after a purge, and ark-api's sort by it stays in storage order", async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  const post = async (session: string, ...contents: string[]) =>
    assert.equal(
      (
        await call(base, 'POST', '/messages', {
          session_id: session,
          query_id: 'q.1',
          messages: contents.map((content) => ({ role: 'user', content })),
        })
      ).status,
      200,
    );
  const list = async (query = '') => (await call<ArkPage>(base, 'GET', `/messages${query}`)).body.messages;
  const numbered = (page: ArkPage['messages']) => page.map((m) => [m.message.content, m.sequence]);

  // A server that holds messages already: the numbers they had go with them.
  await post(uniqueName('earlier'), 'old 1', 'old 2', 'old 3');
  assert.equal((await call(base, 'DELETE', '/messages')).status, 200);
  const [one, two] = [uniqueName('session1'), uniqueName('session2')];
  await post(one, 'first');
  await post(two, 'second');
  await post(one, 'third', 'fourth');
  assert.deepEqual(numbered(await list()), [
    ['first', 1],
    ['second', 2],
    ['third', 3],
    ['fourth', 4],
  ]);
  // Counted before the page is cut, so pages agree with the whole listing.
  assert.deepEqual(numbered(await list('?limit=2&offset=2')), [
    ['third', 3],
    ['fourth', 4],
  ]);
  // A session's read counts its own records, in its order.
  assert.deepEqual(numbered(await list(`?session_id=${one}`)), [
    ['first', 1],
    ['third', 2],
    ['fourth', 3],
  ]);

  // ark-api sorts every record it gathered by sequence, newest first: that is storage order reversed.
  const all = await list();
  const byArkApi = [...all].sort((a, b) => b.sequence - a.sequence);
  assert.deepEqual(
    byArkApi.map((m) => m.id),
    [...all].sort((a, b) => b.id - a.id).map((m) => m.id),
  );

  // Purging one session renumbers what remains, still in storage order.
  assert.equal((await call(base, 'DELETE', `/messages?session_id=${two}`)).status, 200);
  assert.deepEqual(numbered(await list()), [
    ['first', 1],
    ['third', 2],
    ['fourth', 3],
  ]);
  assert.ok((await call<{ sessions: string[] }>(base, 'GET', '/sessions')).body.sessions.includes(one));
});

test("GET /health answers ARK's text OK, and a path no family claims ARK's {error: 'Not found'}, while each family's own paths keep their shape", async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  const health = await fetch(`${base}/health`);
  assert.equal(health.status, 200);
  assert.equal(await health.text(), 'OK');

  const unknown = await call<Record<string, unknown>>(base, 'GET', '/unknown');
  assert.equal(unknown.status, 404);
  assert.deepEqual(unknown.body, {
    error: 'Not found',
    code: 'RESOURCE_NOT_FOUND',
    message: 'No such route: GET /unknown',
  });
  // Under a family's prefix a missing route answers in that family's shape, as its clients parse it.
  const shapes: Array<[string, (body: Record<string, unknown>) => boolean]> = [
    ['/messages/unknown', (b) => typeof b['error'] === 'string' && b['code'] === 'RESOURCE_NOT_FOUND'],
    ['/memory/unknown', (b) => typeof b['detail'] === 'string'],
    ['/api/v1/unknown', (b) => b['status'] === 'failed' && b['code'] === 'RESOURCE_NOT_FOUND'],
    ['/api/v1/context/x/unknown', (b) => typeof (b['error'] as { code?: unknown })?.code === 'string'],
    ['/v1/unknown', (b) => typeof b['error'] === 'string' && typeof b['code'] === 'string'],
  ];
  for (const [path, isItsShape] of shapes) {
    const answer = await call<Record<string, unknown>>(base, 'GET', path);
    assert.equal(answer.status, 404, path);
    assert.ok(isItsShape(answer.body), `${path}: ${JSON.stringify(answer.body)}`);
  }
});
