import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '@memstream/errors';
import { createLogger } from '@memstream/logging';
import { DLQ_HEADERS, KafkaBus, MemoryBus, latestRecords, type Bus } from '@memstream/bus';
import { Metrics } from '@memstream/metrics';
import { deleteTopics, infra, uniqueName, waitFor } from '../../../test/helpers/infra.js';
import { pgJournal } from './pg-journal.js';

const log = createLogger({ service: 'test', level: 'silent' });
const retry = { maxAttempts: 1, initialDelayMs: 10, maxDelayMs: 10 };

// The dead-letter view reads Kafka in the distributed mode and the journal in the embedded one.
const implementations: Array<[string, (t: TestContext) => Bus | Promise<Bus>]> = [
  [
    'journaled in-process bus',
    async (t) => new MemoryBus(log, 2, new Metrics(), { journal: (await pgJournal(t)).journal, commitIntervalMs: 20 }),
  ],
  [
    'Kafka bus',
    () =>
      new KafkaBus({
        brokers: infra().kafkaBrokers,
        clientId: 'latest-records-test',
        log,
        defaultPartitions: 2,
        replicationFactor: 1,
        requestTimeoutMs: 30_000,
        metrics: new Metrics(),
      }),
  ],
];

for (const [name, make] of implementations) {
  test(`${name}: the latest records of a dead-letter topic, newest first and at most the limit, carry their reason`, async (t) => {
    const topic = uniqueName('latest');
    const dlq = `${topic}.dlq`;
    let bus: Bus | undefined;
    t.after(() => bus?.close());
    bus = await make(t);
    if (bus.kind === 'kafka') t.after(() => deleteTopics((n) => n === topic || n === dlq));
    await bus.ensureTopics([{ name: topic }, { name: dlq }]);

    let handled = 0;
    await bus.subscribe({
      groupId: uniqueName('g'),
      topic,
      dlqTopic: dlq,
      retry,
      handler: async (r) => {
        handled++;
        throw new AppError('INVALID_EVENT', `poison ${r.value.toString()}`);
      },
    });
    // one key: one partition, so "latest" is plain offset order
    for (let n = 0; n < 12; n++) await bus.publish(topic, [{ key: 'k', value: String(n) }]);
    await waitFor('12 dead-lettered', async () => handled === 12);
    await waitFor('12 retained', async () => (await latestRecords(bus!, dlq, 50)).retained === 12);

    const latest = await latestRecords(bus, dlq, 5);
    assert.equal(latest.retained, 12);
    assert.deepEqual(
      latest.records.map((r) => r.value.toString()),
      ['11', '10', '9', '8', '7'],
    );
    assert.deepEqual(
      [latest.records[0]!.headers[DLQ_HEADERS.reason], latest.records[0]!.headers[DLQ_HEADERS.code]],
      ['poison 11', 'INVALID_EVENT'],
    );
    assert.equal(latest.records[0]!.headers[DLQ_HEADERS.topic], topic);
  });
}
