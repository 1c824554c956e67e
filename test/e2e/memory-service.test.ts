import { test, type TestContext } from 'node:test';
import { embeddedMemstream, healthy } from '../helpers/embedded.js';
import { freshDatabase, infra, kafkaTopicPrefix, uniqueName, waitFor } from '../helpers/infra.js';
import { freePort, startProcess } from '../helpers/processes.js';
import { bearer, TEST_JWT_SECRET, userToken } from '../helpers/credentials.js';
import { checkConversationScenario, checkDocumentLayout, type People } from './memory-service-contract.js';
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

test('embedded mode: the memory-service document layout: people write under /v1/user, agents in bulk under /v1/agent, the user view hides agent-only messages', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  await checkDocumentLayout(base, await people());
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

test('distributed mode: the scenario and the matrix on the read API and the converter, over Kafka, PostgreSQL and Redis', async (t: TestContext) => {
  const shared = {
    ...AUTH_ENV,
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix(t, 'ms'),
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
    REQUEST_SYNC_TIMEOUT_MS: '15000',
  };
  const [converterPort, readPort] = await Promise.all([freePort(), freePort()]);
  startProcess(t, 'services/converter/src/main.ts', { ...shared, PORT: String(converterPort) });
  startProcess(t, 'services/read-api/src/main.ts', { ...shared, PORT: String(readPort) });
  const converter = `http://127.0.0.1:${converterPort}`;
  const readApi = `http://127.0.0.1:${readPort}`;
  await waitFor('converter and read API healthy', async () => (await healthy(converter)) && (await healthy(readApi)), 60_000);
  await checkConversationScenario(readApi, await people());
  await checkAuthorizationMatrix(readApi, await matrixCredentials());
});
