import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { createAuthenticator, LOCAL_PRINCIPAL, type AuthSettings } from '@memstream/auth';
import { envelopeDocs, envelopeErrorShape, reasonErrorShape } from './test-families.js';
import { createHttpServer, errorHandlerFor, principalOf } from '@memstream/http';
import { createLogger, type Logger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { Lifecycle } from '@memstream/runtime';
import { captureLogger } from '../../../test/helpers/logger.js';

const SECRET = 'test-secret-0123456789abcdefghijklmnop';
const API_KEY = 'ck_live_0123456789abcdef';
const SETTINGS: AuthSettings = { secret: SECRET, apiKeys: [{ clientId: 'chat-backend', key: API_KEY }] };
const FAMILY_ROUTES = ['/evermemos/whoami', '/ark/whoami', '/agent/whoami'] as const;

/**
 * An API process in miniature: the three error families, each one route answering its caller, and
 * two routes whose paths only start like open ones. Ready, so /health answers 200.
 */
async function server(
  t: TestContext,
  settings: AuthSettings,
  log: Logger = createLogger({ service: 'test', level: 'silent' }),
) {
  const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: 1000 });
  const app = createHttpServer({
    log,
    lifecycle,
    bodyLimitBytes: 1024,
    metrics: new Metrics(),
    openapi: { title: 'test', description: 'a test API', families: [envelopeDocs] },
    authenticator: createAuthenticator(settings),
  });
  await app.register(async (family) => {
    family.setErrorHandler(errorHandlerFor(envelopeErrorShape));
    family.get('/evermemos/whoami', async (request) => principalOf(request));
  });
  await app.register(async (family) => {
    family.setErrorHandler(errorHandlerFor(reasonErrorShape));
    family.get('/ark/whoami', async (request) => principalOf(request));
  });
  // No handler of its own: the root's default shape answers for it, as for the memory-agent family
  await app.register(async (family) => {
    family.get('/agent/whoami', async (request) => principalOf(request));
    family.get('/healthy', async (request) => principalOf(request));
    family.get('/docsearch', async (request) => principalOf(request));
  });
  lifecycle.markReady();
  t.after(() => app.close());
  return app;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An HS256 token made without jose, so the check also holds for tokens from other issuers' libraries. */
function hs256(claims: Record<string, unknown>, secret = SECRET): string {
  const signingInput = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(claims)}`;
  return `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
}

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

/** An RS256 token (its signature is junk): verifying it needs the key set, so it goes to the JWKS. */
function rs256(sub: string): string {
  return `${b64url({ alg: 'RS256', kid: 'k1', typ: 'JWT' })}.${b64url({ sub, exp: inAnHour() })}.c2lnbmF0dXJl`;
}

/** An identity provider in maintenance: its JWKS endpoint answers 503. Closed when the test ends. */
async function unavailableKeySet(t: TestContext): Promise<string> {
  const idp = createServer((_req, res) => void res.writeHead(503).end('maintenance'));
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        idp.close(() => resolve());
        idp.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${(idp.address() as AddressInfo).port}/jwks.json`;
}

const get = (app: FastifyInstance, url: string, headers: Record<string, string | undefined> = {}) =>
  app.inject({ method: 'GET', url, headers });

test('without credentials every family answers 401 in its own error shape', async (t) => {
  const app = await server(t, SETTINGS);
  const [evermemos, ark, fallback] = await Promise.all(FAMILY_ROUTES.map((url) => get(app, url)));
  for (const res of [evermemos!, ark!, fallback!]) assert.equal(res.statusCode, 401, res.body);

  const envelope = evermemos!.json();
  assert.deepEqual(Object.keys(envelope).sort(), ['code', 'message', 'path', 'status', 'timestamp']);
  assert.equal(envelope.status, 'failed');
  assert.equal(envelope.code, 'UNAUTHENTICATED');
  assert.equal(envelope.path, '/evermemos/whoami');
  assert.ok(!Number.isNaN(Date.parse(envelope.timestamp)));

  assert.deepEqual(Object.keys(ark!.json()).sort(), ['code', 'error']);
  assert.equal(ark!.json().code, 'UNAUTHENTICATED');
  assert.match(ark!.json().error, /credentials/i);

  assert.deepEqual(Object.keys(fallback!.json()), ['error']);
  assert.equal(fallback!.json().error.code, 'UNAUTHENTICATED');
});

test('a valid API key, in X-API-Key or as a bearer token, reaches every family as its agent', async (t) => {
  const app = await server(t, SETTINGS);
  for (const headers of [{ 'x-api-key': API_KEY }, { authorization: `Bearer ${API_KEY}` }]) {
    for (const url of FAMILY_ROUTES) {
      const res = await get(app, url, headers);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assert.deepEqual(res.json(), { kind: 'agent', clientId: 'chat-backend' });
    }
  }
});

test('a valid bearer JWT reaches the route as its user; an expired or forged one is 401', async (t) => {
  const app = await server(t, SETTINGS);
  const ok = await get(app, '/ark/whoami', { authorization: `Bearer ${hs256({ sub: 'alice', exp: inAnHour() })}` });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.deepEqual(ok.json(), { kind: 'user', userId: 'alice' });
  const expired = hs256({ sub: 'alice', exp: Math.floor(Date.now() / 1000) - 60 });
  const forged = hs256({ sub: 'alice', exp: inAnHour() }, 'not-the-secret-0123456789abcdefghijk');
  for (const token of [expired, forged]) {
    const res = await get(app, '/ark/whoami', { authorization: `Bearer ${token}` });
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(res.json().code, 'UNAUTHENTICATED');
  }
});

test('health, metrics and the API docs stay open without credentials, even with bad ones', async (t) => {
  const app = await server(t, SETTINGS);
  for (const url of ['/health', '/health/live', '/health/ready', '/metrics', '/docs/json', '/docs']) {
    for (const headers of [{}, { authorization: 'Bearer forged', 'x-api-key': 'not-a-key' }]) {
      const res = await get(app, url, headers);
      assert.equal(res.statusCode, 200, `${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
  }
});

test('a route whose path only starts like an open one is closed', async (t) => {
  const app = await server(t, SETTINGS);
  for (const url of ['/healthy', '/docsearch']) assert.equal((await get(app, url)).statusCode, 401, url);
  assert.equal((await get(app, '/healthy', { 'x-api-key': API_KEY })).statusCode, 200);
});

test('an unknown path is 401 without credentials, so it does not reveal which routes exist; 404 with them', async (t) => {
  const app = await server(t, SETTINGS);
  const anonymous = await get(app, '/api/v1/not-a-route');
  assert.equal(anonymous.statusCode, 401);
  // Outside any route, still in the shape of the family the path belongs to (the envelope family's /api/v1).
  assert.deepEqual([anonymous.json().status, anonymous.json().code], ['failed', 'UNAUTHENTICATED']);
  const unknown = await get(app, '/api/v1/not-a-route', { 'x-api-key': API_KEY });
  assert.equal(unknown.statusCode, 404);
  assert.deepEqual(
    [unknown.json().status, unknown.json().code, unknown.json().path],
    ['failed', 'RESOURCE_NOT_FOUND', '/api/v1/not-a-route'],
  );
});

test('an identity provider that is down is a 503 with Retry-After in the family shape, not a 401', async (t) => {
  const app = await server(t, { jwksUrl: await unavailableKeySet(t), apiKeys: [] });
  const res = await get(app, '/evermemos/whoami', { authorization: `Bearer ${rs256('alice')}` });
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(res.headers['retry-after'], '5');
  assert.equal(res.json().code, 'DEPENDENCY_UNAVAILABLE');
});

test('without authentication configured every caller is the local user, and the server warns once', async (t) => {
  const { log, lines } = captureLogger();
  const app = await server(t, { apiKeys: [] }, log);
  for (const headers of [{}, { 'x-api-key': 'anything-at-all-000' }, { authorization: 'Bearer whatever' }]) {
    for (const url of FAMILY_ROUTES) {
      const res = await get(app, url, headers);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assert.deepEqual(res.json(), LOCAL_PRINCIPAL);
    }
  }
  const warnings = lines().filter(
    (l) => l['level'] === 40 && /authentication is not configured/.test(String(l['msg'])),
  );
  assert.equal(warnings.length, 1);
});

test('no API key or token, valid or not, appears in the log, even at trace level', async (t) => {
  let output = '';
  const sink = new Writable({
    write: (chunk: Buffer, _enc, done) => void ((output += chunk.toString('utf8')), done()),
  });
  const log = createLogger({ service: 'test', level: 'trace', destination: sink });
  // A key set that answers 503, so the one path that logs an error with its cause is taken too
  const app = await server(t, { ...SETTINGS, jwksUrl: await unavailableKeySet(t) }, log);

  const badKey = 'ck_live_NOT_A_REAL_KEY_42';
  const goodToken = hs256({ sub: 'alice', exp: inAnHour() });
  const badToken = hs256({ sub: 'mallory', exp: inAnHour() }, 'a-forged-secret-0123456789abcdefghij');
  const keySetToken = rs256('bob');
  const attempts: [Record<string, string>, number][] = [
    [{ 'x-api-key': API_KEY }, 200],
    [{ 'x-api-key': badKey }, 401],
    [{ authorization: `Bearer ${API_KEY}` }, 200],
    [{ authorization: `Bearer ${badKey}` }, 401],
    [{ authorization: `Bearer ${goodToken}` }, 200],
    [{ authorization: `Bearer ${badToken}` }, 401],
    [{ authorization: `Bearer ${keySetToken}` }, 503],
  ];
  for (const [headers, status] of attempts) {
    for (const url of FAMILY_ROUTES)
      assert.equal((await get(app, url, headers)).statusCode, status, `${url} ${JSON.stringify(headers)}`);
  }

  // The sink saw the requests and their refusals, so an absent secret means an unlogged one
  assert.match(output, /request rejected/);
  assert.match(output, /request failed/);
  for (const secret of [
    API_KEY,
    badKey,
    goodToken,
    badToken,
    keySetToken,
    ...[goodToken, badToken, keySetToken].map((t) => t.split('.')[2]!),
  ]) {
    assert.ok(!output.includes(secret), `the log contains ${secret.slice(0, 12)}…`);
  }
});
