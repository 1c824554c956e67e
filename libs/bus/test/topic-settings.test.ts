import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { createLogger } from '@memstream/logging';
import { allTopics, inputRecordMaxBytes, TOPICS } from '@memstream/schemas';
import { infra, waitFor } from '../../../test/helpers/infra.js';
import { testKafkaBus } from '../../../test/helpers/kafka-bus.js';

// A producer wrote before setup on a broker that creates topics on first use: the input topic has
// the broker's settings (here: 7-day segments, an hour's retention, one partition), and a
// mistyped twin exists too. Setup's check fixes what is safe and says the rest.
test('setup holds a topic made before it to the catalogue: shorter segments and longer retention set, a missing partition and a mistyped topic reported', async (t) => {
  const log = createLogger({ service: 'test', level: 'silent' });
  const { bus, prefix } = testKafkaBus(t, 'topic-settings', log);
  const kafka = new Kafka({ brokers: infra().kafkaBrokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  t.after(() => admin.disconnect());
  const input = `${prefix}${TOPICS.groupChatInput.name}`;
  const typo = `${prefix}ingest.groupchat.v1`;
  await admin.createTopics({
    topics: [
      {
        topic: input,
        numPartitions: 1,
        configEntries: [
          { name: 'segment.ms', value: String(7 * 86_400_000) },
          { name: 'retention.ms', value: '3600000' },
          { name: 'cleanup.policy', value: 'delete' },
        ],
      },
      { topic: typo, numPartitions: 1 },
    ],
  });
  const topics = allTopics();
  await bus.ensureTopics(topics);
  const findings = await bus.reconcileTopics(topics);
  const spec = topics.find((x) => x.name === TOPICS.groupChatInput.name)!;
  assert.deepEqual(
    findings.map((f) => [f.topic, f.setting, f.found, f.wanted, f.fixed]).sort(),
    [
      [input, 'max.message.bytes', '1048588', String(spec.maxMessageBytes), true],
      [input, 'partitions', '1', '2', false],
      [input, 'retention.ms', '3600000', String(spec.retentionMs), true],
      [input, 'segment.ms', String(7 * 86_400_000), String(spec.segmentMs), true],
      [typo, 'unknown topic', 'exists', 'a topic of the catalogue', false],
    ].sort(),
  );
  // the controller applies a change a moment after it answers: read until it shows
  const value = await waitFor('the fixed settings to show', async () => {
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 2 /* a topic */, name: input }],
    });
    const read = (name: string) => resources[0]!.configEntries.find((e) => e.configName === name)?.configValue;
    return read('segment.ms') === String(spec.segmentMs) ? read : undefined;
  });
  assert.equal(value('segment.ms'), String(spec.segmentMs));
  assert.equal(value('retention.ms'), String(spec.retentionMs));
  assert.equal(value('cleanup.policy'), 'delete', "the topic's other overrides are kept");
  assert.equal(value('max.message.bytes'), String(spec.maxMessageBytes));
  assert.deepEqual(
    await bus.reconcileTopics(topics).then((f) => f.filter((x) => x.fixed)),
    [],
    'a second run finds nothing to fix',
  );
});

// A record just under the broker's limit was stored, then dead-lettered: its stored event, a few
// hundred bytes larger, did not fit. The input topics now take records 64 KiB below the limit.
test('an input topic refuses a record whose stored event would not fit the broker, and takes one that would', async (t) => {
  const log = createLogger({ service: 'test', level: 'silent' });
  const { bus, prefix } = testKafkaBus(t, 'input-limit', log);
  await bus.ensureTopics(allTopics());
  const kafka = new Kafka({ brokers: infra().kafkaBrokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  t.after(() => producer.disconnect());
  const send = (topic: string, bytes: number) =>
    producer.send({ topic: `${prefix}${topic}`, messages: [{ key: 'g', value: 'x'.repeat(bytes) }] });
  await assert.rejects(send(TOPICS.groupChatInput.name, 990_000), /larger than the max message size/);
  await send(TOPICS.groupChatInput.name, inputRecordMaxBytes(1_000_000) - 1_000);
  await send(TOPICS.messagesStored.name, 990_000); // the stored topic keeps the broker's limit
});
