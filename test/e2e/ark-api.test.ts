import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, infra, uniqueName, waitFor, kafkaTopicPrefix } from '../helpers/infra.js';
import { embeddedMemstream, healthy } from '../helpers/embedded.js';
import { freePort, startProcess } from '../../harness/processes.js';
import { call } from '../helpers/evermemos-client.js';
import { checkArkContract } from './ark-contract.js';

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
