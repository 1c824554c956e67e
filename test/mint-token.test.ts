import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAuthenticator } from '@memstream/auth';
import { AppError } from '@memstream/errors';
import { runCaptured, type CapturedRun } from '../harness/processes.js';

const SECRET = 'test-secret-0123456789abcdefghijklmnop';
const JWT_LINE = /^[\w-]+\.[\w-]+\.[\w-]+\n$/;

function run(command: string, args: readonly string[], env: Record<string, string> = {}): Promise<CapturedRun> {
  // Only PATH and HOME are inherited: the secret must come from the env the test gives.
  return runCaptured(command, args, {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...env },
  });
}

const mintToken = (args: readonly string[], env: Record<string, string> = { AUTH_JWT_SECRET: SECRET }) =>
  run(process.execPath, ['--import', 'tsx', 'scripts/mint-token.ts', ...args], env);

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
const bearer = (stdout: string) => ({ authorization: `Bearer ${stdout.trim()}` });

test('a minted token verifies with the server authenticator as its user, and lives --ttl seconds', async () => {
  const minted = await mintToken(['--sub', 'alice', '--ttl', '120']);
  assert.equal(minted.code, 0, minted.stderr);
  assert.match(minted.stdout, JWT_LINE, 'stdout is the token and its newline, nothing else');
  assert.deepEqual(await createAuthenticator({ secret: SECRET, apiKeys: [] }).authenticate(bearer(minted.stdout)), {
    kind: 'user',
    userId: 'alice',
  });
  const claims = claimsOf(minted.stdout);
  assert.deepEqual(Object.keys(claims).sort(), ['exp', 'iat', 'sub']);
  assert.equal(Number(claims['exp']) - Number(claims['iat']), 120);
  assert.ok(Math.abs(Number(claims['iat']) - Date.now() / 1000) < 60, 'issued now');
});

test('--roles signs a roles claim the server reads as the admin and auditor roles', async () => {
  const minted = await mintToken(['--sub', 'root', '--roles', 'admin, auditor']);
  assert.equal(minted.code, 0, minted.stderr);
  assert.deepEqual(claimsOf(minted.stdout)['roles'], ['admin', 'auditor']);
  const principal = await createAuthenticator({ secret: SECRET, apiKeys: [] }).authenticate(bearer(minted.stdout));
  assert.deepEqual(principal, { kind: 'user', userId: 'root', roles: ['admin', 'auditor'] });
});

test('the default lifetime is an hour', async () => {
  const minted = await mintToken(['--sub', 'alice']);
  assert.equal(minted.code, 0, minted.stderr);
  const claims = claimsOf(minted.stdout);
  assert.equal(Number(claims['exp']) - Number(claims['iat']), 3600);
});

test('--issuer and --audience are signed in, and pass a server that requires them; another audience is refused', async () => {
  const minted = await mintToken(['--sub', 'bob', '--issuer', 'https://id.example', '--audience', 'memstream']);
  assert.equal(minted.code, 0, minted.stderr);
  const strict = createAuthenticator({
    secret: SECRET,
    issuer: 'https://id.example',
    audience: 'memstream',
    apiKeys: [],
  });
  assert.deepEqual(await strict.authenticate(bearer(minted.stdout)), { kind: 'user', userId: 'bob' });
  const other = createAuthenticator({
    secret: SECRET,
    issuer: 'https://id.example',
    audience: 'another-api',
    apiKeys: [],
  });
  await assert.rejects(
    other.authenticate(bearer(minted.stdout)),
    (err) => err instanceof AppError && err.code === 'UNAUTHENTICATED',
  );
});

test('the issuer and audience default to the server settings AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE', async () => {
  const minted = await mintToken(['--sub', 'carol'], {
    AUTH_JWT_SECRET: SECRET,
    AUTH_JWT_ISSUER: 'https://id.example',
    AUTH_JWT_AUDIENCE: 'memstream',
  });
  assert.equal(minted.code, 0, minted.stderr);
  const claims = claimsOf(minted.stdout);
  assert.equal(claims['iss'], 'https://id.example');
  assert.equal(claims['aud'], 'memstream');
});

test('without AUTH_JWT_SECRET, or with one under 32 characters, it exits non-zero, saying why on stderr only', async () => {
  const envs: Record<string, string>[] = [
    {},
    { AUTH_JWT_SECRET: '' },
    { AUTH_JWT_SECRET: 'only-31-characters-long-0123456' },
  ];
  const outcomes = await Promise.all(envs.map((env) => mintToken(['--sub', 'alice'], env)));
  for (const [i, minted] of outcomes.entries()) {
    assert.notEqual(minted.code, 0, JSON.stringify(envs[i]));
    assert.equal(minted.stdout, '');
    assert.match(minted.stderr, /AUTH_JWT_SECRET/);
    assert.match(minted.stderr, /32 characters/);
  }
});

test('without --sub, with a bad --ttl or an unknown option, it exits non-zero with the usage on stderr', async () => {
  const argvs = [
    [],
    ['--sub', ''],
    ['--sub', 'alice', '--ttl', '0'],
    ['--sub', 'alice', '--ttl', '1h'],
    ['--sub', 'alice', '--role', 'admin'],
  ];
  const outcomes = await Promise.all(argvs.map((args) => mintToken(args)));
  for (const [i, minted] of outcomes.entries()) {
    assert.notEqual(minted.code, 0, argvs[i]!.join(' '));
    assert.equal(minted.stdout, '');
    assert.match(minted.stderr, /usage: npm run --silent token -- --sub/);
  }
});

test('npm run --silent token prints the token alone, so $(...) captures it', async () => {
  const minted = await run('npm', ['run', '--silent', 'token', '--', '--sub', 'alice'], { AUTH_JWT_SECRET: SECRET });
  assert.equal(minted.code, 0, minted.stderr);
  assert.match(minted.stdout, JWT_LINE);
});
