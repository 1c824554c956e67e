import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { TOPICS } from '@memstream/schemas';
import { embeddedMemstream } from '../helpers/embedded.js';
import { freshDatabase, infra, kafkaTopicPrefix, uniqueName } from '../helpers/infra.js';
import { captureLogger } from '../helpers/logger.js';
import { startModelServer } from '../../harness/model-server.js';
import { REPO_ROOT, startServing } from '../../harness/processes.js';
import { total } from '../helpers/prometheus.js';
import {
  checkConsumerSeries,
  checkCorrelation,
  checkReadSeries,
  checkSummarySeries,
  checkWriteSeries,
  consumerCaughtUp,
  driveTraffic,
  scrapeWhen,
  summarized,
} from './observability-contract.js';

const MODEL = 'metrics-test-model';
const INPUT = TOPICS.groupChatInput.name;
const STORED = TOPICS.messagesStored.name;

test("embedded mode: one /metrics for every component, correlation ids from HTTP into the consumers' log lines, /docs serving openapi.json", async (t: TestContext) => {
  const model = await startModelServer();
  t.after(() => model.close());
  const { log, lines } = captureLogger('all-in-one');
  const base = await embeddedMemstream(
    t,
    { MEMORY_SUMMARIZE_AFTER_SEQ: '1', OPENAI_BASE_URL: model.baseUrl, SUMMARY_MODEL: MODEL },
    { log },
  );
  const traffic = await driveTraffic(base, base, uniqueName('emb'));

  const samples = await scrapeWhen(
    base,
    'every record handled and a summary made',
    (s) =>
      consumerCaughtUp(s, INPUT, 'memstream-converter', 4) &&
      consumerCaughtUp(s, STORED, 'memstream-summarizer', 4) &&
      summarized(s),
  );
  checkWriteSeries(samples, traffic);
  checkReadSeries(samples, traffic);
  checkConsumerSeries(samples, INPUT, 'memstream-converter', 4);
  checkConsumerSeries(samples, STORED, 'memstream-summarizer', 4);
  assert.ok(
    total(samples, 'memstream_bus_produce_duration_seconds_count', { topic: STORED }) >= 4,
    'the converter publishes what it stored',
  );
  checkSummarySeries(samples, MODEL);
  await checkCorrelation(lines, lines, traffic);

  const served = await fetch(`${base}/docs/json`);
  assert.equal(served.status, 200);
  // openapi.json is written as deployed, with authentication on; this server runs without it, so
  // its document is the same but for the security it declares.
  const {
    security,
    components: { securitySchemes, ...components },
    ...rest
  } = JSON.parse(await readFile(resolve(REPO_ROOT, 'openapi.json'), 'utf8')) as {
    security: unknown;
    components: { securitySchemes: unknown };
  };
  assert.ok(security && securitySchemes, 'the checked-in document declares its security');
  assert.deepEqual(await served.json(), { ...rest, components }, 'the checked-in document is the served one');
  assert.match((await fetch(`${base}/docs`)).headers.get('content-type') ?? '', /text\/html/);
});

test('distributed mode: every service serves /metrics, a poison record is counted as a dead letter, correlation ids cross Kafka', async (t: TestContext) => {
  const model = await startModelServer();
  t.after(() => model.close());
  const prefix = kafkaTopicPrefix('metrics');
  const groups = { converter: uniqueName('converter'), summarizer: uniqueName('summarizer') };
  const shared = {
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: prefix,
    KAFKA_TOPIC_PARTITIONS: '2',
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: groups.converter,
    SUMMARIZER_GROUP_ID: groups.summarizer,
    MEMORY_SUMMARIZE_AFTER_SEQ: '1',
    OPENAI_BASE_URL: model.baseUrl,
    SUMMARY_MODEL: MODEL,
    REQUEST_SYNC_TIMEOUT_MS: '30000',
  };
  const [
    { base: gateway },
    { base: converter, proc: converterProcess },
    { base: summarizer, proc: summarizerProcess },
    { base: readApi },
  ] = await Promise.all([
    startServing(t, 'services/api/src/main-gateway.ts', shared),
    startServing(t, 'services/converter/src/main.ts', shared),
    startServing(t, 'services/summarizer/src/main.ts', shared),
    startServing(t, 'services/api/src/main-read-api.ts', shared),
  ]);

  const traffic = await driveTraffic(gateway, readApi, uniqueName('dist'));
  // A producer that is not the gateway writes a record that is not JSON: the converter dead-letters it.
  const producer = new Kafka({ brokers: infra().kafkaBrokers, logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  t.after(() => producer.disconnect());
  await producer.send({ topic: `${prefix}${INPUT}`, messages: [{ key: traffic.group, value: '{not json' }] });

  const gatewaySamples = await scrapeWhen(
    gateway,
    'the gateway counted the writes',
    (s) => total(s, 'memstream_bus_produced_records_total', { topic: INPUT }) >= 4,
  );
  checkWriteSeries(gatewaySamples, traffic);

  const converterSamples = await scrapeWhen(
    converter,
    'the converter caught up and dead-lettered the poison record',
    (s) => consumerCaughtUp(s, INPUT, groups.converter, 4) && total(s, 'memstream_consumer_dead_letters_total') >= 1,
  );
  checkConsumerSeries(converterSamples, INPUT, groups.converter, 4);
  assert.equal(
    total(converterSamples, 'memstream_consumer_dead_letters_total', {
      topic: INPUT,
      group: groups.converter,
      reason: 'INVALID_EVENT',
    }),
    1,
  );
  assert.equal(
    total(converterSamples, 'memstream_consumer_records_total', {
      topic: INPUT,
      group: groups.converter,
      outcome: 'dead_lettered',
    }),
    1,
  );
  assert.equal(
    total(converterSamples, 'memstream_bus_produced_records_total', { topic: TOPICS.groupChatInput.dlq }),
    1,
  );
  assert.ok(total(converterSamples, 'memstream_bus_produced_records_total', { topic: STORED }) >= 4);
  // The read API reads the record itself back from Kafka, with its reason (the console's pipeline view).
  const letters = (await (
    await fetch(`${readApi}/v1/admin/dead-letters?topic=${TOPICS.groupChatInput.dlq}`)
  ).json()) as { data: Array<{ records: Array<{ value: string; code: string; consumerGroup: string }> }> };
  assert.deepEqual(
    letters.data[0]?.records.map((r) => [r.value, r.code, r.consumerGroup]),
    // the group as the broker names it (the prefix is part of it), for an operator's Kafka tools
    [['{not json', 'INVALID_EVENT', `${prefix}${groups.converter}`]],
  );

  const summarizerSamples = await scrapeWhen(
    summarizer,
    'the summarizer caught up and summarized',
    (s) => consumerCaughtUp(s, STORED, groups.summarizer, 4) && summarized(s),
  );
  checkConsumerSeries(summarizerSamples, STORED, groups.summarizer, 4);
  checkSummarySeries(summarizerSamples, MODEL);

  checkReadSeries(
    await scrapeWhen(
      readApi,
      'the read API counted the reads',
      (s) => total(s, 'memstream_http_request_duration_seconds_count', { route: '/stream/:session_id' }) >= 1,
    ),
    traffic,
  );

  await checkCorrelation(
    () => converterProcess.lines,
    () => summarizerProcess.lines,
    traffic,
  );

  // Each API service documents its own routes: the gateway every family's writes, the read API the reads.
  const operations = async (base: string) =>
    Object.entries(
      ((await (await fetch(`${base}/docs/json`)).json()) as { paths: Record<string, object> }).paths,
    ).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`));
  const written = await operations(gateway);
  assert.ok(written.includes('post /api/v1/memories') && written.includes('post /messages'), written.join(', '));
  assert.deepEqual(
    written.filter((op) => op.startsWith('get ')),
    [],
  );
  const read = await operations(readApi);
  assert.ok(read.includes('get /stream/{session_id}') && read.includes('get /api/v1/memories'), read.join(', '));
  assert.ok(!read.includes('post /api/v1/memories') && !read.includes('post /messages'), read.join(', '));
  assert.equal((await fetch(`${converter}/docs/json`)).status, 404, 'consumers serve no API documentation');
});
