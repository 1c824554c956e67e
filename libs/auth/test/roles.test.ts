import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, type JWTPayload } from 'jose';
import { z } from 'zod';
import {
  authSettingsOf,
  createAuthenticator,
  DEFAULT_ROLE_SETTINGS,
  hasRole,
  LOCAL_PRINCIPAL,
  resolveRoles,
  tokenRolesOf,
  type RoleSettings,
} from '@memstream/auth';
import { authSettings, loadConfig } from '@memstream/config';

const SECRET = 'roles-test-secret-0123456789abcdefghij';
const KEYS = [
  { clientId: 'ops-bot', key: 'ops_key_0123456789abcdef' },
  { clientId: 'audit-bot', key: 'aud_key_0123456789abcdef' },
  { clientId: 'chat-agent', key: 'chat_key_0123456789abcdef' },
];
const LISTS: RoleSettings = {
  ...DEFAULT_ROLE_SETTINGS,
  adminUsers: ['dora'],
  auditorUsers: ['erin'],
  adminClients: ['ops-bot'],
  auditorClients: ['audit-bot'],
};

const person = (userId: string, tokenRoles: string[] = []) => ({ kind: 'user' as const, userId, tokenRoles });
const agent = (clientId: string) => ({ kind: 'agent' as const, clientId });

async function tokenFor(claims: JWTPayload): Promise<string> {
  return new SignJWT({ exp: Math.floor(Date.now() / 1000) + 600, ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(SECRET));
}

test('a token role, a listed person or a listed agent each make an admin, and an admin is an auditor too', () => {
  assert.deepEqual(resolveRoles(person('alice', ['admin']), LISTS), ['admin', 'auditor']);
  assert.deepEqual(resolveRoles(person('dora'), LISTS), ['admin', 'auditor']);
  assert.deepEqual(resolveRoles(agent('ops-bot'), LISTS), ['admin', 'auditor']);
});

test('a token role, a listed person or a listed agent each make an auditor, who is not an admin', () => {
  assert.deepEqual(resolveRoles(person('carol', ['auditor']), LISTS), ['auditor']);
  assert.deepEqual(resolveRoles(person('erin'), LISTS), ['auditor']);
  assert.deepEqual(resolveRoles(agent('audit-bot'), LISTS), ['auditor']);
});

test('nobody else holds a role: an unlisted person, an unlisted agent, an agent named like a listed person', () => {
  assert.deepEqual(resolveRoles(person('bob', ['user', 'Admin']), LISTS), []);
  assert.deepEqual(resolveRoles(agent('chat-agent'), LISTS), []);
  // the lists are per kind: a client id equal to an admin's user id is not an admin
  assert.deepEqual(resolveRoles(agent('dora'), LISTS), []);
  assert.deepEqual(resolveRoles(person('ops-bot'), LISTS), []);
});

test('the role names are settings: with AUTH_ADMIN_ROLE=superuser the token role admin is nothing', () => {
  const renamed = { ...DEFAULT_ROLE_SETTINGS, adminRole: 'superuser', auditorRole: 'compliance' };
  assert.deepEqual(resolveRoles(person('alice', ['admin']), renamed), []);
  assert.deepEqual(resolveRoles(person('alice', ['superuser']), renamed), ['admin', 'auditor']);
  assert.deepEqual(resolveRoles(person('carol', ['compliance']), renamed), ['auditor']);
});

test('token roles come from the roles claim or from Keycloak realm_access.roles; non-strings are ignored', () => {
  assert.deepEqual(tokenRolesOf({ roles: ['admin', 7, null] }), ['admin']);
  assert.deepEqual(tokenRolesOf({ roles: 'auditor' }), ['auditor']);
  assert.deepEqual(tokenRolesOf({ realm_access: { roles: ['offline_access', 'admin'] } }), ['offline_access', 'admin']);
  assert.deepEqual(tokenRolesOf({ roles: ['a'], realm_access: { roles: ['a', 'b'] } }), ['a', 'b']);
  assert.deepEqual(tokenRolesOf({ realm_access: ['admin'] }), []);
  assert.deepEqual(tokenRolesOf({ roles: { admin: true } }), []);
  assert.deepEqual(tokenRolesOf({}), []);
});

test('the authenticator gives a verified token its roles, and a plain caller none at all', async () => {
  const auth = createAuthenticator({ secret: SECRET, apiKeys: KEYS, roles: LISTS });
  const bearer = async (claims: JWTPayload) => ({ authorization: `Bearer ${await tokenFor(claims)}` });
  assert.deepEqual(await auth.authenticate(await bearer({ sub: 'alice', realm_access: { roles: ['admin'] } })), {
    kind: 'user',
    userId: 'alice',
    roles: ['admin', 'auditor'],
  });
  assert.deepEqual(await auth.authenticate(await bearer({ sub: 'carol', roles: ['auditor'] })), {
    kind: 'user',
    userId: 'carol',
    roles: ['auditor'],
  });
  assert.deepEqual(await auth.authenticate(await bearer({ sub: 'bob' })), { kind: 'user', userId: 'bob' });
  assert.deepEqual(await auth.authenticate({ 'x-api-key': 'ops_key_0123456789abcdef' }), {
    kind: 'agent',
    clientId: 'ops-bot',
    roles: ['admin', 'auditor'],
  });
  assert.deepEqual(await auth.authenticate({ authorization: 'Bearer aud_key_0123456789abcdef' }), {
    kind: 'agent',
    clientId: 'audit-bot',
    roles: ['auditor'],
  });
  assert.deepEqual(await auth.authenticate({ 'x-api-key': 'chat_key_0123456789abcdef' }), {
    kind: 'agent',
    clientId: 'chat-agent',
  });
});

test('a roles claim on a token that does not verify gives nothing: the token is refused', async () => {
  const auth = createAuthenticator({ secret: SECRET, apiKeys: [], roles: LISTS });
  const forged = await new SignJWT({ sub: 'mallory', roles: ['admin'], exp: Math.floor(Date.now() / 1000) + 600 })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode('another-secret-0123456789abcdefghijkl'));
  await assert.rejects(auth.authenticate({ authorization: `Bearer ${forged}` }), { code: 'UNAUTHENTICATED' });
});

test('hasRole: the local user (authentication off) holds every role; others what they were given', () => {
  assert.equal(hasRole(LOCAL_PRINCIPAL, 'admin'), true);
  assert.equal(hasRole({ kind: 'user', userId: 'carol', roles: ['auditor'] }, 'auditor'), true);
  assert.equal(hasRole({ kind: 'user', userId: 'carol', roles: ['auditor'] }, 'admin'), false);
  assert.equal(hasRole({ kind: 'agent', clientId: 'chat-agent' }, 'auditor'), false);
});

test('the AUTH_* role settings parse from the environment, with memory-service defaults', () => {
  const schema = z.object(authSettings);
  const defaults = authSettingsOf(loadConfig(schema, {}));
  assert.deepEqual(defaults.roles, DEFAULT_ROLE_SETTINGS);
  const set = authSettingsOf(
    loadConfig(schema, {
      AUTH_API_KEYS: 'ops-bot:ops_key_0123456789abcdef',
      AUTH_ADMIN_ROLE: 'superuser',
      AUTH_AUDITOR_ROLE: 'compliance',
      AUTH_ADMIN_USERS: 'dora, frank',
      AUTH_AUDITOR_USERS: 'erin',
      AUTH_ADMIN_CLIENTS: 'ops-bot',
      AUTH_AUDITOR_CLIENTS: ' audit-bot ,',
    }),
  );
  assert.deepEqual(set.roles, {
    adminRole: 'superuser',
    auditorRole: 'compliance',
    adminUsers: ['dora', 'frank'],
    auditorUsers: ['erin'],
    adminClients: ['ops-bot'],
    auditorClients: ['audit-bot'],
  });
});
