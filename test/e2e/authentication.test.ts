import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { freshDatabase, infra, uniqueName, waitFor, kafkaTopicPrefix } from '../helpers/infra.js';
import { embeddedMemstream, healthy } from '../helpers/embedded.js';
import { freePort, startProcess } from '../../harness/processes.js';
import { bearer, TEST_JWT_SECRET, useCredentials, userToken } from '../../harness/credentials.js';
import { checkWriteContract } from './evermemos-contract.js';
import { checkArkContract } from './ark-contract.js';
import { checkMemoryAgent } from './memory-agent-contract.js';
import { checkAccessRules, type Callers } from './access-contract.js';

const AGENT_KEY = 'agent-key-0123456789abcdef';
const AUTH_ENV = { AUTH_JWT_SECRET: TEST_JWT_SECRET, AUTH_API_KEYS: `chat-backend:${AGENT_KEY}` };

async function callers(): Promise<Callers> {
  return {
    alice: bearer(await userToken('alice')),
    bob: bearer(await userToken('bob')),
    agent: { 'x-api-key': AGENT_KEY },
    expired: bearer(await userToken('alice', { expiresInS: -3600 })),
    forged: bearer(await userToken('alice', { secret: 'not-the-server-secret-0123456789abcdef' })),
  };
}

test('embedded mode with authentication: the EverMemOS, ARK and Memory Agent contracts pass for a person with a token, and for an agent key', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { ...AUTH_ENV, SUMMARY_SWEEP_INTERVAL_MS: '200' });
  useCredentials(base, bearer(await userToken('carol')));
  await checkWriteContract(base, base, uniqueName('auth-evm'));
  await checkArkContract([base], uniqueName('auth-ark'));
  await checkMemoryAgent(base, base, uniqueName('auth-agent'));
  useCredentials(base, { 'x-api-key': AGENT_KEY });
  await checkWriteContract(base, base, uniqueName('auth-evm-agent'));
});

test('embedded mode: a person reaches only their own conversations in every family; agents reach all; bad credentials get 401', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  await checkAccessRules(base, base, uniqueName('acl'), await callers());
});

test('distributed mode: the same rules across gateway, converter and read API, and memberships grant reading and writing', async (t: TestContext) => {
  const databaseUrl = await freshDatabase(t);
  const shared = {
    ...AUTH_ENV,
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix(t, 'acl'),
    DATABASE_URL: databaseUrl,
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
  };
  const ports = await Promise.all([freePort(), freePort(), freePort()]);
  const [gateway, converter, readApi] = ports.map((p) => `http://127.0.0.1:${p}`) as [string, string, string];
  startProcess(t, 'services/ingest-gateway/src/main.ts', { ...shared, PORT: String(ports[0]) });
  startProcess(t, 'services/converter/src/main.ts', { ...shared, PORT: String(ports[1]) });
  startProcess(t, 'services/read-api/src/main.ts', { ...shared, PORT: String(ports[2]) });
  await waitFor('all three healthy', async () => (await healthy(gateway)) && (await healthy(converter)) && (await healthy(readApi)), 60_000);

  const db = new pg.Client({ connectionString: databaseUrl });
  // The database is dropped (FORCE) by a hook registered before this one, which runs first.
  db.on('error', () => undefined);
  await db.connect();
  t.after(() => db.end().catch(() => undefined));
  const grant = async (groupId: string, user: string, level: 'reader' | 'writer') => {
    await db.query(
      `INSERT INTO conversation_memberships (group_id, user_id, access_level) VALUES ($1, $2, $3)
       ON CONFLICT (group_id, user_id) DO UPDATE SET access_level = EXCLUDED.access_level`,
      [groupId, user, level],
    );
  };
  await checkAccessRules(gateway, readApi, uniqueName('acl'), await callers(), grant);
});
