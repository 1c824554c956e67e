import { test, type TestContext } from 'node:test';
import { createLogger } from '@memstream/logging';
import { PgStore, setMembership } from '@memstream/store';
import { freshDatabase, infra, uniqueName, kafkaTopicPrefix } from '../helpers/infra.js';
import { embeddedMemstream } from '../helpers/embedded.js';
import { startApi, startServices } from '../helpers/distributed.js';
import { bearer, TEST_JWT_SECRET, useCredentials, userToken } from '../../harness/credentials.js';
import { checkWriteContract } from './evermemos-contract.js';
import { checkArkContract } from './ark-contract.js';
import { checkMemoryAgent } from './memory-agent-contract.js';
import { checkAccessRules, type Callers } from './access-contract.js';
import { checkAgentOnlyContent, checkPrivateChats, type CrossFamilyCallers } from './cross-family-access-contract.js';

const AGENT_KEY = 'agent-key-0123456789abcdef';
const OTHER_AGENT_KEY = 'planner-key-0123456789abcdef';
const AUTH_ENV = {
  AUTH_JWT_SECRET: TEST_JWT_SECRET,
  AUTH_API_KEYS: `chat-backend:${AGENT_KEY},planner:${OTHER_AGENT_KEY}`,
};

async function callers(): Promise<Callers> {
  return {
    alice: bearer(await userToken('alice')),
    bob: bearer(await userToken('bob')),
    agent: { 'x-api-key': AGENT_KEY },
    expired: bearer(await userToken('alice', { expiresInS: -3600 })),
    forged: bearer(await userToken('alice', { secret: 'not-the-server-secret-0123456789abcdef' })),
  };
}

async function crossFamilyCallers(): Promise<CrossFamilyCallers> {
  return {
    owner: bearer(await userToken('olive')),
    member: bearer(await userToken('milo')),
    memberId: 'milo',
    agent: { 'x-api-key': AGENT_KEY },
    otherAgent: { 'x-api-key': OTHER_AGENT_KEY },
  };
}

// The EverMemOS and Memory Agent contracts post messages of several senders, as a chat backend
// does: that takes an agent key, since a person posts only as themselves (checkPrivateChats).
test('embedded mode with authentication: the ARK contract passes for a person with a token; EverMemOS, ARK and Memory Agent for an agent key', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { ...AUTH_ENV, SUMMARY_SWEEP_INTERVAL_MS: '200' });
  useCredentials(base, bearer(await userToken('carol')));
  await checkArkContract([base], uniqueName('auth-ark'), 'carol');
  useCredentials(base, { 'x-api-key': AGENT_KEY });
  await checkWriteContract(base, base, uniqueName('auth-evm-agent'));
  await checkArkContract([base], uniqueName('auth-ark-agent'));
  await checkMemoryAgent(base, base, uniqueName('auth-agent'));
});

test('embedded mode: a person reaches only their own conversations in every family; agents reach all; bad credentials get 401', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { ...AUTH_ENV, SUMMARY_SWEEP_INTERVAL_MS: '200' });
  await checkAccessRules(base, base, uniqueName('acl'), await callers());
  await checkPrivateChats(base, base, uniqueName('private'), { 'x-api-key': AGENT_KEY });
  await checkAgentOnlyContent(base, uniqueName('agent-only'), await crossFamilyCallers());
});

test('distributed mode: the same rules across gateway, converter and read API, and memberships grant reading and writing', async (t: TestContext) => {
  const databaseUrl = await freshDatabase(t);
  const shared = {
    ...AUTH_ENV,
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix('acl'),
    DATABASE_URL: databaseUrl,
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
    INDEXER_GROUP_ID: uniqueName('indexer'),
    EXTRACTOR_GROUP_ID: uniqueName('extractor'),
    SUMMARIZER_GROUP_ID: uniqueName('summarizer'),
    SUMMARY_SWEEP_INTERVAL_MS: '200',
  };
  // The memory consumers too: what is made from messages (search rows, episodes, summaries) is
  // part of what the rules cover.
  await startServices(t, shared, ['converter', 'indexer', 'extractor', 'summarizer']);
  // The gateway and the read API behind the edge: each call goes to the process that serves it.
  const [api] = (await startApi(t, shared)) as [string];

  const log = createLogger({ service: 'authentication-test', level: 'silent' });
  const db = new PgStore({ connectionString: databaseUrl, maxConnections: 1, statementTimeoutMs: 10_000, log });
  // The database is dropped (FORCE) by a hook registered before this one, which runs first.
  t.after(() => db.close().catch(() => undefined));
  const grant = async (groupId: string, user: string, level: 'reader' | 'writer') => {
    await setMembership(db, groupId, user, level);
  };
  await checkAccessRules(api, api, uniqueName('acl'), await callers(), grant);
  await checkPrivateChats(api, api, uniqueName('private'), { 'x-api-key': AGENT_KEY });
  await checkAgentOnlyContent(api, uniqueName('agent-only'), await crossFamilyCallers());
});
