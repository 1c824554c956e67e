import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, infra, uniqueName, waitFor, kafkaTopicPrefix } from '../helpers/infra.js';
import { embeddedMemstream, healthy } from '../helpers/embedded.js';
import { freePort, startProcess } from '../../harness/processes.js';
import { call } from '../helpers/evermemos-client.js';
import { checkArkContract } from './ark-contract.js';
import { contents, openSse } from '../../harness/sse-client.js';

test('embedded mode: ARK memory API, streams and completion; ARK sessions get summaries', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { SUMMARY_SWEEP_INTERVAL_MS: '200' });
  const prefix = uniqueName('ark');
  await checkArkContract([base], prefix);
  const summaries = await waitFor('the summarizer summarized the ARK session', async () => {
    const res = await call<{ summaries: Array<{ status: string }> }>(base, 'GET', `/api/v1/summaries?conversation_id=${prefix}-s1`);
    return res.body.summaries?.some((s) => s.status === 'completed') ? res.body.summaries : undefined;
  });
  assert.ok(summaries.length > 0);
  const big = await fetch(`${base}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session_id: 'big', messages: [{ role: 'user', content: 'x'.repeat(11 * 1024 * 1024) }] }) });
  assert.equal(big.status, 413, 'past the 10 MB default body limit');
});

test('embedded mode: after a deletion leaves a gap in a session\'s numbering, the stream\'s catch-up still delivers what follows it', async (t: TestContext) => {
  // EverMemOS writes publish no live event: they reach an ARK stream only through its catch-up, which runs each heartbeat.
  const base = await embeddedMemstream(t, { SSE_HEARTBEAT_MS: '100' });
  const session = uniqueName('gap');
  const evermemos = (id: string, content: string) => call(base, 'POST', '/api/v1/memories', { group_id: session, message_id: id, create_time: '2025-01-15T10:00:00Z', sender: 'ann', content });
  for (const [id, content] of [['m1', 'first'], ['m2', 'second'], ['m3', 'third']] as const) assert.equal((await evermemos(id, content)).status, 200);
  const deleted = await call<{ result: { deleted_messages: number } }>(base, 'DELETE', `/api/v1/memories?group_id=${session}&message_id=m1`);
  assert.deepEqual([deleted.status, deleted.body.result.deleted_messages], [200, 1]);

  const stream = await openSse(`${base}/stream/${session}`);
  t.after(() => stream.close());
  assert.equal(stream.status, 200);
  assert.equal((await evermemos('m4', 'after the gap')).status, 200);
  await waitFor('the message after the gap streamed', async () => (contents(stream).includes('after the gap') ? true : undefined), 10_000);
  assert.deepEqual(contents(stream), ['after the gap'], 'nothing stored before the stream opened is sent again');
});

test('distributed mode: ARK API on two read-api replicas, live delivery across them through Redis', async (t: TestContext) => {
  const shared = {
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix(t, 'ark'),
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
  };
  const ports = await Promise.all([freePort(), freePort(), freePort()]);
  startProcess(t, 'services/converter/src/main.ts', { ...shared, PORT: String(ports[0]) });
  startProcess(t, 'services/read-api/src/main.ts', { ...shared, PORT: String(ports[1]) });
  startProcess(t, 'services/read-api/src/main.ts', { ...shared, PORT: String(ports[2]) });
  const bases = ports.map((p) => `http://127.0.0.1:${p}`);
  await waitFor('converter and two read APIs healthy', async () => (await Promise.all(bases.map(healthy))).every(Boolean), 60_000);
  await checkArkContract(bases.slice(1), uniqueName('ark'));
});
