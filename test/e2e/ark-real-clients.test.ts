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

test('ARK records carry sequence, in storage order across sessions', async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  const session = uniqueName('chat');
  for (const content of ['first', 'second'])
    assert.equal(
      (
        await call(base, 'POST', '/messages', {
          session_id: session,
          query_id: 'q.1',
          messages: [{ role: 'user', content }],
        })
      ).status,
      200,
    );
  const page = await call<{ messages: Array<{ sequence: number; message: { content: string } }> }>(
    base,
    'GET',
    `/messages?session_id=${session}`,
  );
  const [a, b] = page.body.messages;
  assert.ok(Number.isInteger(a!.sequence) && b!.sequence > a!.sequence, JSON.stringify(page.body.messages));
  assert.ok((await call<{ sessions: string[] }>(base, 'GET', '/sessions')).body.sessions.includes(session));
});
