import { test, type TestContext } from 'node:test';
import { embeddedMemstream } from '../helpers/embedded.js';
import { freshDatabase, infra } from '../helpers/infra.js';
import { pipelineEnv, startApi, startServices } from '../helpers/distributed.js';
import { checkErasure, ERASURE_ENV } from './erasure-contract.js';

test('embedded mode: a person erased from every family, with what was made of their words; writes after the request erased too; the other person untouched', async (t: TestContext) => {
  const databaseUrl = await freshDatabase(t);
  const base = await embeddedMemstream(t, { ...ERASURE_ENV, DATABASE_URL: databaseUrl });
  await checkErasure(base, { databaseUrl });
});

test('distributed mode: the same erasure through Kafka and the converter, Redis included', async (t: TestContext) => {
  const env = await pipelineEnv(t, 'erasure', {
    ...ERASURE_ENV,
    SUMMARIZER_GROUP_ID: `summarizer-${Date.now()}`,
  });
  await startServices(t, env, ['converter', 'indexer', 'extractor', 'summarizer']);
  const [api] = await startApi(t, env);
  await checkErasure(api!, { databaseUrl: env['DATABASE_URL']!, redisUrl: infra().redisUrl });
});
