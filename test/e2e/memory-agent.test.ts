import { test, type TestContext } from 'node:test';
import { freshDatabase, infra, uniqueName, waitFor, kafkaTopicPrefix } from '../helpers/infra.js';
import { embeddedMemstream, healthy } from '../helpers/embedded.js';
import { freePort, startProcess } from '../../harness/processes.js';
import { checkMemoryAgent } from './memory-agent-contract.js';

test('embedded mode: rolling summaries with spec 004 windows, version chain and agent context', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { SUMMARY_SWEEP_INTERVAL_MS: '200' });
  await checkMemoryAgent(base, base, uniqueName('agent'));
});

test('distributed mode: the same, with the summarizer as its own process on Kafka and Postgres', async (t: TestContext) => {
  const shared = {
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix(t, 'agent'),
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
    SUMMARIZER_GROUP_ID: uniqueName('summarizer'),
    SUMMARY_SWEEP_INTERVAL_MS: '200',
  };
  const ports = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const [gateway, converter, summarizer, readApi] = ports.map((p) => `http://127.0.0.1:${p}`) as [
    string,
    string,
    string,
    string,
  ];
  startProcess(t, 'services/api/src/main-gateway.ts', { ...shared, PORT: String(ports[0]) });
  startProcess(t, 'services/converter/src/main.ts', { ...shared, PORT: String(ports[1]) });
  startProcess(t, 'services/summarizer/src/main.ts', { ...shared, PORT: String(ports[2]) });
  startProcess(t, 'services/api/src/main-read-api.ts', { ...shared, PORT: String(ports[3]) });
  await waitFor(
    'all four healthy',
    async () => (await Promise.all([gateway, converter, summarizer, readApi].map(healthy))).every(Boolean),
    60_000,
  );
  await checkMemoryAgent(gateway, readApi, uniqueName('agent'));
});
