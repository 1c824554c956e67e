import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { bearer, userToken } from '../../harness/credentials.js';
import type { SecurityCheck } from './security-callers.js';

/** The public name the security servers are configured with (PUBLIC_HOSTS in security.test.ts). */
export const SECURITY_PUBLIC_HOST = 'memstream.example';

type Answer = { status: number; headers: IncomingMessage['headers']; body: string };

/** One request with exactly these headers: fetch sets Host and Origin itself. */
function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A declared 1 MB body of which only the first bytes come: the answer, and whether the socket was closed. */
async function unreadBody(base: string, path: string): Promise<{ head: string; closed: boolean }> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  let head = '';
  socket.setEncoding('latin1');
  socket.on('data', (c: string) => (head += c));
  socket.on('error', () => undefined);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"a":`,
  );
  // The answer comes, then (from memstream itself) the close; the rest of the body is never sent.
  const closed = await new Promise<boolean>((resolve) => {
    socket.on('close', () => resolve(true));
    socket.on('data', () => {
      if (/^HTTP\/1\.1 \d+/.test(head) && head.includes('\r\n\r\n') && /server: nginx/i.test(head)) resolve(false);
    });
  });
  socket.destroy();
  return { head, closed };
}

/**
 * Issue 49, item 5 and 8, with credentials: the same edge as the credential-less server's,
 * as defence in depth. A page of another origin is refused whatever token it carries, a Host
 * other than the configured public name or a loopback one is refused, a write names its media
 * type, no preflight is granted, answers carry nosniff, and an answer to an unread body closes
 * the connection (behind the nginx edge, nginx keeps its side; the answer is checked there).
 */
export const edgeContract: SecurityCheck = async (base, who, prefix) => {
  const group = `${prefix}-edge`;
  const message = (id: string) =>
    JSON.stringify({
      group_id: group,
      message_id: id,
      create_time: '2025-01-15T10:00:00Z',
      sender: 'alice',
      content: id,
    });
  const write = (headers: Record<string, string>, id: string) =>
    raw(
      base,
      'POST',
      '/api/v1/memories',
      { ...who.alice, 'content-type': 'application/json', ...headers },
      message(id),
    );

  // another origin, with alice's valid token: refused, nothing stored
  const evil = await write({ origin: 'https://evil.example' }, 'from-evil');
  assert.equal(evil.status, 403, evil.body);
  assert.equal((await write({ origin: 'null' }, 'from-null')).status, 403);
  const own = await write({ origin: base }, 'from-own-origin');
  assert.equal(own.status, 200, own.body);
  assert.equal(own.headers['x-content-type-options'], 'nosniff');
  const listed = await raw(base, 'GET', `/api/v1/memories?group_id=${group}`, who.alice);
  assert.match(listed.body, /from-own-origin/);
  assert.doesNotMatch(listed.body, /from-evil|from-null/);

  // no preflight is granted
  const preflight = await raw(base, 'OPTIONS', '/api/v1/memories', {
    origin: 'https://evil.example',
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization, content-type',
  });
  assert.ok(preflight.status >= 400 && preflight.status < 500, String(preflight.status));
  assert.equal(preflight.headers['access-control-allow-origin'], undefined);

  // a foreign Host (DNS rebinding) is refused; the configured public name is answered
  const path = `/api/v1/memories?group_id=${group}`;
  assert.equal((await raw(base, 'GET', path, { ...who.alice, host: 'attacker.example' })).status, 403);
  assert.equal((await raw(base, 'GET', path, { ...who.alice, host: SECURITY_PUBLIC_HOST })).status, 200);

  // a write names its media type: a body-less erasure, or a text/plain one, erases nobody
  const eve = bearer(await userToken(`${prefix}-eve`));
  assert.equal((await raw(base, 'POST', '/v1/me/erasure', eve)).status, 400);
  assert.equal((await raw(base, 'POST', '/v1/me/erasure', { ...eve, 'content-type': 'text/plain' }, '{}')).status, 400);
  const erasures = await raw(base, 'GET', `/v1/admin/erasures?userId=${prefix}-eve`, who.admin);
  assert.equal(erasures.status, 200, erasures.body);
  assert.deepEqual(JSON.parse(erasures.body), { data: [] });

  // 401 to a body never read: the answer comes at once, and memstream closes the connection
  const refused = await unreadBody(base, '/api/v1/memories');
  assert.match(refused.head, /^HTTP\/1\.1 401/);
  assert.match(refused.head, /x-content-type-options: nosniff/i);
  if (!/server: nginx/i.test(refused.head)) {
    assert.match(refused.head, /connection: close/i);
    assert.ok(refused.closed);
  }
};
