import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { createLogger } from '@memstream/logging';
import { allTopics, TOPICS } from '@memstream/schemas';
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
  assert.deepEqual(
    await bus.reconcileTopics(topics).then((f) => f.filter((x) => x.fixed)),
    [],
    'a second run finds nothing to fix',
  );
});
