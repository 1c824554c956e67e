import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, type JWTPayload } from 'jose';
import { createAuthenticator, LOCAL_PRINCIPAL, type AuthSettings, type CredentialHeaders } from '@memstream/auth';
import { refusedWith } from './refusal.js';

const SECRET = 'test-secret-0123456789abcdefghijklmnop';
const OTHER_SECRET = 'another-secret-0123456789abcdefghijklm';
const KEYS = [
  { clientId: 'chat-backend', key: 'ck_live_0123456789abcdef' },
  { clientId: 'agent-runtime', key: 'ak_live_fedcba9876543210' },
];

const now = () => Math.floor(Date.now() / 1000);

/** Claims are given whole (no defaults), so a test that leaves out exp or sub really has none. */
async function hs256(claims: JWTPayload, secret = SECRET): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}

function authenticator(settings: Partial<AuthSettings> = {}) {
  return createAuthenticator({ secret: SECRET, apiKeys: KEYS, ...settings });
}

const bearer = (token: string): CredentialHeaders => ({ authorization: `Bearer ${token}` });
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

test('a valid HS256 token is the user named by its sub', async () => {
  const token = await hs256({ sub: 'alice', iat: now(), exp: now() + 600 });
  assert.deepEqual(await authenticator().authenticate(bearer(token)), { kind: 'user', userId: 'alice' });
});

test('a token that expired beyond the clock tolerance is refused; one within it is accepted', async () => {
  const auth = authenticator();
  await refusedWith('UNAUTHENTICATED', auth.authenticate(bearer(await hs256({ sub: 'alice', exp: now() - 60 }))));
  // 5 s of tolerance: a token that expired 2 s ago on the issuer's clock is still ours to accept
  assert.deepEqual(await auth.authenticate(bearer(await hs256({ sub: 'alice', exp: now() - 2 }))), {
    kind: 'user',
    userId: 'alice',
  });
});

test('a token that is not valid yet (nbf in the future) is refused', async () => {
  const token = await hs256({ sub: 'alice', nbf: now() + 60, exp: now() + 600 });
  await refusedWith('UNAUTHENTICATED', authenticator().authenticate(bearer(token)));
});

test('a token signed with another secret is refused', async () => {
  const token = await hs256({ sub: 'alice', exp: now() + 600 }, OTHER_SECRET);
  await refusedWith('UNAUTHENTICATED', authenticator().authenticate(bearer(token)));
});

test('an unsigned token (alg none) is refused, even naming a real user', async () => {
  const token = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: 'alice', exp: now() + 600 })}.`;
  await refusedWith('UNAUTHENTICATED', authenticator().authenticate(bearer(token)));
});

test('a token whose payload was changed after signing is refused', async () => {
  const [header, , signature] = (await hs256({ sub: 'alice', exp: now() + 600 })).split('.');
  const tampered = `${header}.${b64url({ sub: 'admin', exp: now() + 600 })}.${signature}`;
  await refusedWith('UNAUTHENTICATED', authenticator().authenticate(bearer(tampered)));
});

test('a token without exp, or without a usable sub, is refused', async () => {
  const auth = authenticator();
  for (const claims of [
    { sub: 'alice' },
    { exp: now() + 600 },
    { sub: '', exp: now() + 600 },
    { sub: 42, exp: now() + 600 },
  ]) {
    const token = await hs256(claims as JWTPayload);
    await refusedWith('UNAUTHENTICATED', auth.authenticate(bearer(token)));
  }
});

test('with an issuer and audience configured, a token must name both; a matching one is accepted', async () => {
  const auth = authenticator({ issuer: 'https://id.example', audience: 'memstream' });
  const claims = { sub: 'alice', exp: now() + 600 };
  await refusedWith(
    'UNAUTHENTICATED',
    auth.authenticate(bearer(await hs256({ ...claims, iss: 'https://evil.example', aud: 'memstream' }))),
  );
  await refusedWith(
    'UNAUTHENTICATED',
    auth.authenticate(bearer(await hs256({ ...claims, iss: 'https://id.example', aud: 'other-api' }))),
  );
  await refusedWith('UNAUTHENTICATED', auth.authenticate(bearer(await hs256(claims))));
  const good = await hs256({ ...claims, iss: 'https://id.example', aud: ['other-api', 'memstream'] });
  assert.deepEqual(await auth.authenticate(bearer(good)), { kind: 'user', userId: 'alice' });
});

test('an API key in X-API-Key is the agent it was issued to', async () => {
  const auth = authenticator();
  assert.deepEqual(await auth.authenticate({ 'x-api-key': 'ak_live_fedcba9876543210' }), {
    kind: 'agent',
    clientId: 'agent-runtime',
  });
  assert.deepEqual(await auth.authenticate({ 'x-api-key': 'ck_live_0123456789abcdef' }), {
    kind: 'agent',
    clientId: 'chat-backend',
  });
});

test('an API key sent as a bearer token is the agent too, with or without a JWT secret configured', async () => {
  for (const auth of [authenticator(), authenticator({ secret: undefined })]) {
    assert.deepEqual(await auth.authenticate(bearer('ck_live_0123456789abcdef')), {
      kind: 'agent',
      clientId: 'chat-backend',
    });
    assert.deepEqual(await auth.authenticate({ authorization: 'bearer ck_live_0123456789abcdef' }), {
      kind: 'agent',
      clientId: 'chat-backend',
    });
  }
});

test('an unknown API key is refused, in either header', async () => {
  const auth = authenticator();
  await refusedWith('UNAUTHENTICATED', auth.authenticate({ 'x-api-key': 'ck_live_0123456789abcdeX' }));
  await refusedWith('UNAUTHENTICATED', auth.authenticate({ 'x-api-key': '' }));
  await refusedWith(
    'UNAUTHENTICATED',
    authenticator({ secret: undefined }).authenticate(bearer('ck_live_unknown_key_000')),
  );
});

test('a wrong X-API-Key is refused even beside a valid bearer token: no silent fallback', async () => {
  const token = await hs256({ sub: 'alice', exp: now() + 600 });
  await refusedWith(
    'UNAUTHENTICATED',
    authenticator().authenticate({ ...bearer(token), 'x-api-key': 'not-a-key-at-all-000' }),
  );
});

test("a person's token beside an agent's key names the person the agent acts for; one that does not verify is refused", async () => {
  const auth = authenticator();
  const key = { 'x-api-key': 'ak_live_fedcba9876543210' };
  const alice = await hs256({ sub: 'alice', exp: now() + 600 });
  assert.deepEqual(await auth.authenticate({ ...key, ...bearer(alice) }), {
    kind: 'agent',
    clientId: 'agent-runtime',
    onBehalfOf: 'alice',
  });
  const forged = await hs256({ sub: 'alice', exp: now() + 600 }, OTHER_SECRET);
  await refusedWith('UNAUTHENTICATED', auth.authenticate({ ...key, ...bearer(forged) }));
  // the same key twice is the agent alone; two different keys are refused
  assert.deepEqual(await auth.authenticate({ ...key, ...bearer('ak_live_fedcba9876543210') }), {
    kind: 'agent',
    clientId: 'agent-runtime',
  });
  await refusedWith('UNAUTHENTICATED', auth.authenticate({ ...key, ...bearer('ck_live_0123456789abcdef') }));
  // with keys only, no person can be verified: the header is left aside
  assert.deepEqual(await authenticator({ secret: undefined }).authenticate({ ...key, ...bearer(alice) }), {
    kind: 'agent',
    clientId: 'agent-runtime',
  });
});

test('a request without credentials is refused', async () => {
  await refusedWith('UNAUTHENTICATED', authenticator().authenticate({}));
});

test('a malformed Authorization header is refused', async () => {
  const auth = authenticator();
  const token = await hs256({ sub: 'alice', exp: now() + 600 });
  for (const authorization of [
    'Basic YWxpY2U6c2VjcmV0',
    'Bearer',
    'Bearer ',
    `Bearer ${token} extra`,
    token,
    'Bearer not.a.jwt',
    'Bearer garbage',
  ]) {
    await refusedWith('UNAUTHENTICATED', auth.authenticate({ authorization }));
  }
});

test('a credential header sent twice is refused: it is ambiguous who is calling', async () => {
  await refusedWith(
    'UNAUTHENTICATED',
    authenticator().authenticate({ 'x-api-key': ['ck_live_0123456789abcdef', 'ak_live_fedcba9876543210'] }),
  );
});

test('with nothing configured, authentication is off and every caller is the local user', async () => {
  const auth = createAuthenticator({ apiKeys: [] });
  assert.equal(auth.enabled, false);
  const token = await hs256({ sub: 'alice', exp: now() + 600 });
  for (const headers of [
    {},
    bearer(token),
    { 'x-api-key': 'ck_live_0123456789abcdef' },
    { authorization: 'Basic x' },
  ]) {
    assert.equal(await auth.authenticate(headers), LOCAL_PRINCIPAL);
  }
  assert.equal(authenticator().enabled, true);
  assert.equal(createAuthenticator({ apiKeys: KEYS }).enabled, true);
});

test('a token that expires absurdly far ahead (exp 1e20, or two years away) is refused', async () => {
  const auth = authenticator();
  await refusedWith('UNAUTHENTICATED', auth.authenticate(bearer(await hs256({ sub: 'alice', exp: 1e20 }))));
  const twoYears = now() + 2 * 366 * 24 * 3600;
  await refusedWith('UNAUTHENTICATED', auth.authenticate(bearer(await hs256({ sub: 'alice', exp: twoYears }))));
  // a month is within what identity providers issue
  const month = await hs256({ sub: 'alice', iat: now(), exp: now() + 30 * 24 * 3600 });
  assert.deepEqual(await auth.authenticate(bearer(month)), { kind: 'user', userId: 'alice' });
});

test('a token issued in the future (iat past the clock tolerance) is refused; within it, accepted', async () => {
  const auth = authenticator();
  const yearAhead = now() + 365 * 24 * 3600;
  await refusedWith(
    'UNAUTHENTICATED',
    auth.authenticate(bearer(await hs256({ sub: 'alice', iat: yearAhead, exp: yearAhead + 600 }))),
  );
  await refusedWith(
    'UNAUTHENTICATED',
    auth.authenticate(bearer(await hs256({ sub: 'alice', iat: now() + 60, exp: now() + 600 }))),
  );
  const skewed = await hs256({ sub: 'alice', iat: now() + 2, exp: now() + 600 });
  assert.deepEqual(await auth.authenticate(bearer(skewed)), { kind: 'user', userId: 'alice' });
});
