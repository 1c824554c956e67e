import { test, type TestContext } from 'node:test';
import { freshDatabase, infra, uniqueName, kafkaTopicPrefix } from '../helpers/infra.js';
import { embeddedMemstream } from '../helpers/embedded.js';
import { startServices } from '../helpers/distributed.js';
import { checkMemoryAgent } from './memory-agent-contract.js';

test('embedded mode: rolling summaries with spec 004 windows, version chain and agent context', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { SUMMARY_SWEEP_INTERVAL_MS: '200' });
  await checkMemoryAgent(base, base, uniqueName('agent'));
});

test('distributed mode: the same, with the summarizer as its own process on Kafka and Postgres', async (t: TestContext) => {
  const shared = {
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix('agent'),
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
    SUMMARIZER_GROUP_ID: uniqueName('summarizer'),
    SUMMARY_SWEEP_INTERVAL_MS: '200',
  };
  const [gateway, , , readApi] = (await startServices(t, shared, [
    'ingest-gateway',
    'converter',
    'summarizer',
    'read-api',
  ])) as [string, string, string, string];
  await checkMemoryAgent(gateway, readApi, uniqueName('agent'));
});
