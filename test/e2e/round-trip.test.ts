import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, infra, uniqueName, waitFor, kafkaTopicPrefix } from '../helpers/infra.js';
import { restartServing, startServing, type RunningProcess } from '../../harness/processes.js';

const message = {
  group_id: 'team-alpha',
  group_name: 'Project Discussion Group',
  message_id: 'msg_001',
  create_time: '2025-01-15T10:00:00+08:00',
  sender: 'user_001',
  sender_name: 'Zhang San',
  content: "Let's discuss the technical approach for the new feature today",
  refer_list: ['msg_000'],
};

async function postMessage(base: string): Promise<void> {
  const res = await fetch(`${base}/api/v1/memories`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(message),
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { status: string; result: { request_id: string } };
  assert.equal(body.status, 'ok');
  assert.ok(body.result.request_id);
}

interface Memory {
  message_id: string;
  group_id: string;
  user_id: string;
  sender_name: string;
  content: string;
  timestamp: string;
  refer_list: string[];
  sequence: number;
}

async function readMessages(base: string): Promise<Memory[]> {
  const res = await fetch(`${base}/api/v1/memories?group_id=team-alpha`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { result: { memories: Memory[]; total_count: number } };
  return body.result.memories;
}

function assertStored(memories: Memory[]): void {
  assert.equal(memories.length, 1);
  assert.deepEqual(
    { ...memories[0] },
    {
      memory_type: 'message',
      message_id: 'msg_001',
      group_id: 'team-alpha',
      group_name: 'Project Discussion Group',
      user_id: 'user_001',
      sender_name: 'Zhang San',
      timestamp: '2025-01-15T02:00:00.000Z',
      content: message.content,
      refer_list: ['msg_000'],
      sequence: 0,
    },
  );
}

async function stop(p: RunningProcess): Promise<number | null> {
  p.child.kill('SIGTERM');
  return p.exited;
}

test('embedded mode: a message posted is read back, survives a SIGTERM restart, with no other service', async (t: TestContext) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'memstream-e2e-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  // Empty values on purpose: the embedded mode must not touch Kafka, Postgres or Redis.
  const env = { DATA_DIR: dataDir, KAFKA_BROKERS: '', DATABASE_URL: '', REDIS_URL: '' };

  const { base, proc: first } = await startServing(t, 'services/all-in-one/src/main.ts', env);
  await postMessage(base);
  assertStored(
    await waitFor('message readable', async () =>
      (await readMessages(base)).length > 0 ? readMessages(base) : undefined,
    ),
  );
  assert.equal(await stop(first), 0);

  const second = await restartServing(t, 'services/all-in-one/src/main.ts', env, base);
  assertStored(await readMessages(base));
  assert.equal(await stop(second), 0);
});

test('distributed mode: gateway, converter and read API as separate processes on Kafka and Postgres', async (t: TestContext) => {
  const shared = {
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix('e2e'),
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
  };
  const [{ base: gatewayBase, proc: gateway }, { proc: converter }, { base: readBase, proc: firstReadApi }] =
    await Promise.all([
      startServing(t, 'services/api/src/main-gateway.ts', shared),
      startServing(t, 'services/converter/src/main.ts', shared),
      startServing(t, 'services/api/src/main-read-api.ts', shared),
    ]);

  await postMessage(gatewayBase);
  assertStored(
    await waitFor('message readable', async () =>
      (await readMessages(readBase)).length > 0 ? readMessages(readBase) : undefined,
    ),
  );
  // the row is visible before the converter logs it (it logs after publishing the stored event)
  await waitFor('the converter logged the store', async () => converter.hasLogged('group-chat batch stored'));

  assert.deepEqual(await Promise.all([stop(gateway), stop(converter), stop(firstReadApi)]), [0, 0, 0]);
  const readApi = await restartServing(t, 'services/api/src/main-read-api.ts', shared, readBase);
  assertStored(await readMessages(readBase));
  assert.equal(await stop(readApi), 0);
});
