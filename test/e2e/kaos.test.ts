import { test, type TestContext } from 'node:test';
import { embeddedMemstream } from '../helpers/embedded.js';
import { uniqueName } from '../helpers/infra.js';
import { distributedEnv, startApi, startServices } from '../helpers/distributed.js';
import { bearer, TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';
import {
  checkKaosAccess,
  checkKaosBadInput,
  checkKaosEviction,
  checkKaosSemantics,
  checkNullMemory,
  KAOS_LIMIT_ENV,
} from './kaos-contract.js';

const AGENT_KEY = 'kaos-agent-key-0123456789abcdef';
const AUTH_ENV = { AUTH_JWT_SECRET: TEST_JWT_SECRET, AUTH_API_KEYS: `kaos-pod:${AGENT_KEY}` };
const agentKey = { 'x-api-key': AGENT_KEY };

async function people() {
  return { alice: bearer(await userToken('alice')), bob: bearer(await userToken('bob')), agent: agentKey };
}

test('embedded mode: KAOS agent memory, its envelopes, limits, eviction, bad input and access', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { ...AUTH_ENV, ...KAOS_LIMIT_ENV });
  await checkKaosSemantics(base, agentKey, 'semantics');
  await checkKaosEviction([base], agentKey, 'eviction');
  await checkKaosBadInput(base, agentKey, 'bad-input');
  await checkKaosAccess(base, await people(), 'access');
});

test('embedded mode: MEMORY_ENABLED=false answers as KAOS NullMemory, storing nothing', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { MEMORY_ENABLED: 'false' });
  await checkNullMemory(base, {});
});

test('embedded mode: without authentication, KAOS_AGENT_NAME names the agent of calls without X-KAOS-Agent', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { KAOS_AGENT_NAME: 'pod-agent', ...KAOS_LIMIT_ENV });
  await checkKaosSemantics(base, {}, 'pod-agent');
});

test('distributed mode: two API replicas and two converters over Kafka share one KAOS memory; eviction holds across replicas', async (t: TestContext) => {
  const shared = await distributedEnv(t, 'kaos', {
    ...AUTH_ENV,
    ...KAOS_LIMIT_ENV,
    REQUEST_SYNC_TIMEOUT_MS: '15000',
    KAFKA_TOPIC_PARTITIONS: '4',
    // the access check searches: the indexer and the read API embed with the same cheap model
    EMBEDDING_PROVIDER: 'hash',
    INDEXER_GROUP_ID: uniqueName('indexer'),
  });
  // two converters and an indexer, and two replicas of the API (a gateway and a read API behind
  // an edge): the writes of one are read on the other
  const [, [one, two]] = (await Promise.all([
    startServices(t, shared, ['converter', 'converter', 'indexer']),
    startApi(t, shared, 2),
  ])) as [unknown, [string, string]];
  await checkKaosSemantics(one, agentKey, 'semantics');
  await checkKaosEviction([one, two], agentKey, 'eviction');
  await checkKaosBadInput(two, agentKey, 'bad-input');
  await checkKaosAccess(two, await people(), 'access');
});
