import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, infra, uniqueName, waitFor, kafkaTopicPrefix } from '../helpers/infra.js';
import { embeddedMemstream } from '../helpers/embedded.js';
import { restartServing, startServing } from '../../harness/processes.js';
import { call, messagesOf, requestStatus } from '../helpers/evermemos-client.js';
import { checkWriteContract } from './evermemos-contract.js';
import { checkClientMetadata, checkClientReads, checkDeleteFilters } from './evermemos-clients-contract.js';
import { checkDefaultMeta, checkDefaultMetaAccess } from './evermemos-default-meta-contract.js';
import { bearer, TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';

test('embedded mode: the EverMemOS write API, read-your-writes, duplicates, metadata', async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  await checkWriteContract(base, base, uniqueName('emb'));
});

test('a delete by an event_id nothing has leaves the group whole; filters are ANDed, unknown keys refused', async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  await checkDeleteFilters(base, base, uniqueName('del'));
});

test("EverMemOS's clients: GET bodies, every memory kind, the narrative, grouped search, delete by event_id", async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  await checkClientReads(base, base, uniqueName('cli'));
});

test("EverMemOS's later clients' metadata: no version, no user_details, an empty PATCH, nulls left alone", async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  await checkClientMetadata(base, base, uniqueName('meta'));
});

test('the default conversation metadata (group_id null): set, replaced, read, fallen back to by a group without its own', async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  await checkDefaultMeta(base, base, uniqueName('dflt'));
});

test('with authentication, only an agent reads or changes the default metadata; a person sees it through their own group', async (t: TestContext) => {
  const agentKey = 'agent-key-0123456789abcdef';
  const base = await embeddedMemstream(t, { AUTH_JWT_SECRET: TEST_JWT_SECRET, AUTH_API_KEYS: `backend:${agentKey}` });
  await checkDefaultMetaAccess(base, uniqueName('dflt-acl'), {
    agent: { 'x-api-key': agentKey },
    person: bearer(await userToken('dana')),
    personId: 'dana',
  });
});

test('distributed mode: the same contract across gateway, converter and read API processes', async (t: TestContext) => {
  const shared = {
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix('evm'),
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
  };
  const [{ base: gateway }, firstConverter, { base: readApi }] = await Promise.all([
    startServing(t, 'services/api/src/main-gateway.ts', { ...shared, REQUEST_SYNC_TIMEOUT_MS: '10000' }),
    startServing(t, 'services/converter/src/main.ts', shared),
    startServing(t, 'services/api/src/main-read-api.ts', shared),
  ]);
  const converter = firstConverter.proc;

  await checkWriteContract(gateway, readApi, uniqueName('dist'));

  // With the converter down, a write is accepted (and its status says so) but not stored; when
  // the converter returns, it is.
  converter.child.kill('SIGTERM');
  assert.equal(await converter.exited, 0);
  const group = uniqueName('paused');
  const queued = await call<{ request_id: string }>(gateway, 'POST', '/api/v1/memories?sync_mode=false', {
    group_id: group,
    message_id: 'q1',
    create_time: '2025-01-15T10:00:00Z',
    sender: 'u',
    content: 'queued',
  });
  assert.equal(queued.status, 202);
  const accepted = await requestStatus(readApi, queued.body.request_id);
  assert.equal(accepted.status, 200);
  assert.equal(accepted.body.result['status'], 'accepted');
  assert.equal((await messagesOf(readApi, group)).total_count, 0);

  await restartServing(t, 'services/converter/src/main.ts', shared, firstConverter.base);
  const stored = await waitFor(
    'the queued write stored',
    async () => {
      const s = await requestStatus(readApi, queued.body.request_id);
      return s.body.result['status'] === 'stored' ? s : undefined;
    },
    60_000,
  );
  assert.equal(stored.body.result['sequence'], 0);
  assert.equal((await messagesOf(readApi, group)).total_count, 1);
});
