import { test, type TestContext } from 'node:test';
import { embeddedMemstream } from '../helpers/embedded.js';
import { bearer, TEST_JWT_SECRET, userToken } from '../helpers/credentials.js';
import { checkConversationScenario, type People } from './memory-service-contract.js';
import { checkAuthorizationMatrix, USERS, type Credentials } from './memory-service-matrix.js';

const AGENT_KEY = 'agent-key-0123456789abcdef';
const AUTH_ENV = { AUTH_JWT_SECRET: TEST_JWT_SECRET, AUTH_API_KEYS: `assistant:${AGENT_KEY}` };

async function people(): Promise<People> {
  return { alice: bearer(await userToken('alice')), bob: bearer(await userToken('bob')), carol: bearer(await userToken('carol')), agent: { 'x-api-key': AGENT_KEY } };
}

test('embedded mode: the memory-service code layout, as its generated clients call it: create, append, fork, share, read, transfer, delete', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  await checkConversationScenario(base, await people());
});

async function matrixCredentials(): Promise<Credentials> {
  const person = async (sub: string) => bearer(await userToken(sub));
  return {
    owner: await person(USERS.owner),
    manager: await person(USERS.manager),
    writer: await person(USERS.writer),
    reader: await person(USERS.reader),
    stranger: await person(USERS.stranger),
    agent: { 'x-api-key': AGENT_KEY },
    none: {},
    expired: bearer(await userToken(USERS.owner, { expiresInS: -3600 })),
    forged: bearer(await userToken(USERS.owner, { secret: 'not-the-server-secret-0123456789abcdef' })),
  };
}

test('embedded mode: the authorization matrix of every memory-service endpoint', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  await checkAuthorizationMatrix(base, await matrixCredentials());
});
