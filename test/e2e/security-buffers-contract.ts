import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { bearer, userToken } from '../../harness/credentials.js';
import type { SecurityCheck } from './security-callers.js';

/**
 * Issue 49, items 7 and 10: what a caller sends is bounded before it is held or worked on.
 * - The response resumer (memory-service): a response's bytes, and a person's responses in
 *   progress, are bounded (413, 429 in memory-service's error shape), in process and in Redis.
 * - A KAOS append to a session the caller cannot write is refused before a byte of its 9.8 MB
 *   body is read: the answer arrives while most of the body was never sent.
 * The defaults apply (RESPONSE_MAX_BYTES 1 MiB, RESPONSE_MAX_IN_PROGRESS_PER_PERSON 8).
 */
export const checkBuffers: SecurityCheck = async (base, who, prefix) => {
  // A person of this run alone: a person's responses in progress are counted across a server's life.
  const attacker = bearer(await userToken(`${prefix}-mallory`));
  await resumerBounds(base, attacker, prefix);
  await kaosRefusedUnread(base, who.alice, who.mallory, prefix);
  assert.equal((await fetch(`${base}/health`)).status, 200, 'the server is up after it all');
};

async function resumerBounds(base: string, person: Record<string, string>, prefix: string): Promise<void> {
  const conversation = async () => {
    const created = await call(base, person, 'POST', '/v1/conversations', { title: prefix });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body['id'] as string;
  };
  const record = (id: string, tokens: string[]) =>
    call(base, person, 'POST', `/v1/conversations/${id}/response`, { tokens });

  // a token is at most 100,000 characters: 600 KB in six, twice
  const sixHundredKb = Array.from({ length: 6 }, () => 'x'.repeat(100_000));
  const first = await conversation();
  assert.equal((await record(first, sixHundredKb)).status, 200);
  const tooLarge = await record(first, sixHundredKb);
  assert.equal(tooLarge.status, 413, 'a response past 1 MiB of tokens is refused');
  assert.equal(tooLarge.body['code'], 'payload_too_large');
  // seven more in progress make eight: the ninth is refused until one ends
  const open = [first];
  for (let i = 0; i < 7; i++) {
    open.push(await conversation());
    assert.equal((await record(open.at(-1)!, ['a'])).status, 200);
  }
  const ninth = await conversation();
  const tooMany = await record(ninth, ['a']);
  assert.equal(tooMany.status, 429, 'a ninth response in progress is refused');
  assert.equal(tooMany.body['code'], 'too_many_requests');
  for (const id of open)
    assert.equal((await call(base, person, 'POST', `/v1/conversations/${id}/cancel-response`)).status, 200);
  assert.equal((await record(ninth, ['a'])).status, 200, 'ended responses free their places');
  assert.equal((await call(base, person, 'POST', `/v1/conversations/${ninth}/cancel-response`)).status, 200);
}

async function kaosRefusedUnread(
  base: string,
  owner: Record<string, string>,
  stranger: Record<string, string>,
  prefix: string,
): Promise<void> {
  const sessionId = `${prefix}-kaos`;
  const created = await call(base, owner, 'POST', '/memory/sessions', { app_name: 'app', session_id: sessionId });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  // One event whose content is 9.8 MB of small numbers: the body of issue 49's probe.
  const numbers = Buffer.from(`[${'7,'.repeat(4_900_000)}7]`);
  const body = Buffer.concat([Buffer.from('{"event_type":"tool_result","content":'), numbers, Buffer.from('}')]);
  for (const [caller, session] of [
    [stranger, `${prefix}-no-such-session`],
    [stranger, sessionId], // alice's: to mallory it does not exist
  ] as const) {
    const answer = await answerBeforeBody(base, `/memory/sessions/${session}/events`, caller, body, 64 * 1024);
    assert.equal(answer.status, 404, `refused with most of the body unsent: ${answer.text}`);
    assert.equal(JSON.parse(answer.text).code, 'RESOURCE_NOT_FOUND');
  }
  // Her own session takes the whole body, and refuses its content on the byte count alone.
  const own = await call(base, owner, 'POST', `/memory/sessions/${sessionId}/events`, body);
  assert.equal(own.status, 413, JSON.stringify(own.body));
  assert.equal(own.body['code'], 'PAYLOAD_TOO_LARGE');
}

/**
 * Sends a request's headers and the first `sent` bytes of `body` (declaring all of it), and reads
 * the answer without ever sending the rest: only a server that answers before reading the body
 * answers at all.
 */
async function answerBeforeBody(
  base: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  sent: number,
): Promise<{ status: number; text: string }> {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  // Not a time limit on the answer: a server that refuses first answers at once, whatever the load.
  // One that waits for the body never answers; this ends that wait as a failure instead of a hang.
  socket.setTimeout(60_000, () =>
    socket.destroy(new Error('no answer with the body unsent: the server reads the body before refusing')),
  );
  try {
    const head = [
      `POST ${path} HTTP/1.1`,
      `Host: ${url.host}`,
      'Content-Type: application/json',
      `Content-Length: ${body.length}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      '',
      '',
    ].join('\r\n');
    socket.write(head);
    socket.write(body.subarray(0, sent));
    let received = Buffer.alloc(0);
    for await (const chunk of socket) {
      received = Buffer.concat([received, chunk as Buffer]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) continue;
      const header = received.subarray(0, end).toString('latin1');
      const length = Number(/content-length: *(\d+)/i.exec(header)?.[1]);
      if (received.length - end - 4 < length) continue;
      const text = received.subarray(end + 4, end + 4 + length).toString('utf8');
      return { status: Number(header.split(' ')[1]), text };
    }
    throw new Error(`the connection closed without an answer: ${received.toString('latin1').slice(0, 200)}`);
  } finally {
    socket.destroy();
  }
}

async function call(
  base: string,
  who: Record<string, string>,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...who, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
