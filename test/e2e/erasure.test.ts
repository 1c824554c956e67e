import { test, type TestContext } from 'node:test';
import { embeddedMemstream } from '../helpers/embedded.js';
import { freshDatabase, infra } from '../helpers/infra.js';
import { pipelineEnv, startApi, startServices } from '../helpers/distributed.js';
import { checkErasure, ERASURE_ENV } from './erasure-contract.js';
import { Kafka, logLevel } from 'kafkajs';
import { createLogger } from '@memstream/logging';
import { allTopics } from '@memstream/schemas';
import { PgStore, storeBusJournal } from '@memstream/store';
import { readKafkaFromZero } from '../helpers/read-from-zero.js';

const log = createLogger({ service: 'erasure-test', level: 'silent' });

test('embedded mode: a person erased from every family, with what was made of their words; writes after the request erased too; the other person untouched', async (t: TestContext) => {
  const databaseUrl = await freshDatabase(t);
  const base = await embeddedMemstream(t, { ...ERASURE_ENV, DATABASE_URL: databaseUrl });
  const store = new PgStore({ connectionString: databaseUrl, maxConnections: 1, statementTimeoutMs: 10_000, log });
  t.after(() => store.close());
  // the journal is where the in-process bus keeps every topic: what a bus started on it would read from 0
  const readTransport = async () => [...(await storeBusJournal(store).load()).records];
  await checkErasure(base, { databaseUrl, readTransport });
});

test('distributed mode: the same erasure through Kafka and the converter, Redis included', async (t: TestContext) => {
  const env = await pipelineEnv(t, 'erasure', {
    ...ERASURE_ENV,
    SUMMARIZER_GROUP_ID: `summarizer-${Date.now()}`,
  });
  await startServices(t, env, ['converter', 'governance', 'indexer', 'extractor', 'summarizer']);
  const [api] = await startApi(t, env);
  const kafka = new Kafka({ brokers: infra().kafkaBrokers, logLevel: logLevel.NOTHING });
  const topics = allTopics().map((topic) => topic.name);
  await checkErasure(api!, {
    databaseUrl: env['DATABASE_URL']!,
    redisUrl: infra().redisUrl,
    readTransport: () => readKafkaFromZero(kafka, env['KAFKA_TOPIC_PREFIX'] ?? '', topics),
  });
});
