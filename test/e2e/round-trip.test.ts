import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, infra, uniqueName, waitFor, kafkaTopicPrefix } from '../helpers/infra.js';
import { healthy } from '../helpers/embedded.js';
import { freePort, startProcess, type RunningProcess } from '../../harness/processes.js';

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
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // Empty values on purpose: the embedded mode must not touch Kafka, Postgres or Redis.
  const env = { PORT: String(port), DATA_DIR: dataDir, KAFKA_BROKERS: '', DATABASE_URL: '', REDIS_URL: '' };

  const first = startProcess(t, 'services/all-in-one/src/main.ts', env);
  await waitFor('embedded health', () => healthy(base), 60_000);
  await postMessage(base);
  assertStored(
    await waitFor('message readable', async () =>
      (await readMessages(base)).length > 0 ? readMessages(base) : undefined,
    ),
  );
  assert.equal(await stop(first), 0);

  const second = startProcess(t, 'services/all-in-one/src/main.ts', env);
  await waitFor('embedded health after restart', () => healthy(base), 60_000);
  assertStored(await readMessages(base));
  assert.equal(await stop(second), 0);
});

test('distributed mode: gateway, converter and read API as separate processes on Kafka and Postgres', async (t: TestContext) => {
  const shared = {
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix(t, 'e2e'),
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
  };
  const [gatewayPort, converterPort, readPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const gatewayBase = `http://127.0.0.1:${gatewayPort}`;
  const readBase = `http://127.0.0.1:${readPort}`;
  const converterBase = `http://127.0.0.1:${converterPort}`;

  const gateway = startProcess(t, 'services/api/src/main-gateway.ts', { ...shared, PORT: String(gatewayPort) });
  const converter = startProcess(t, 'services/converter/src/main.ts', { ...shared, PORT: String(converterPort) });
  let readApi = startProcess(t, 'services/api/src/main-read-api.ts', { ...shared, PORT: String(readPort) });
  await waitFor(
    'all three healthy',
    async () => (await healthy(gatewayBase)) && (await healthy(converterBase)) && (await healthy(readBase)),
    60_000,
  );

  await postMessage(gatewayBase);
  assertStored(
    await waitFor('message readable', async () =>
      (await readMessages(readBase)).length > 0 ? readMessages(readBase) : undefined,
    ),
  );
  // the row is visible before the converter logs it (it logs after publishing the stored event)
  await waitFor('the converter logged the store', async () => converter.hasLogged('group-chat batch stored'));

  assert.deepEqual(await Promise.all([stop(gateway), stop(converter), stop(readApi)]), [0, 0, 0]);
  readApi = startProcess(t, 'services/api/src/main-read-api.ts', { ...shared, PORT: String(readPort) });
  await waitFor('read API healthy after restart', () => healthy(readBase));
  assertStored(await readMessages(readBase));
  assert.equal(await stop(readApi), 0);
});
