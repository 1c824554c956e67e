import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { createLogger } from '@memstream/logging';
import { infra } from '../../../test/helpers/infra.js';
import { testKafkaBus } from '../../../test/helpers/kafka-bus.js';

// The converter publishes a flush's stored events in one call. Two 680 KB messages of one
// conversation among them made one record batch past the broker's 1 MB limit (message.max.bytes):
// the publish failed whole, and the flush was delivered again one record at a time. The call now
// goes out in requests within the limit, in order.
test('one publish of two 680 KB records and 500 small ones for one key reaches the broker whole and in order', async (t) => {
  const log = createLogger({ service: 'test', level: 'silent' });
  const { bus, prefix } = testKafkaBus(t, 'publish-size', log);
  await bus.ensureTopics([{ name: 'sizes', partitions: 1 }]);
  const records = Array.from({ length: 502 }, (_, i) => ({
    key: 'one-conversation',
    value: i === 100 || i === 101 ? `${i}:${'y'.repeat(680_000)}` : `${i}:small`,
  }));
  await bus.publish('sizes', records);

  const kafka = new Kafka({ brokers: infra().kafkaBrokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  t.after(() => admin.disconnect());
  const [end] = await admin.fetchTopicOffsets(`${prefix}sizes`);
  assert.equal(Number(end!.high), 502, 'every record once');
  const ranges = await bus.ranges('sizes');
  const read = await bus.scan('sizes', ranges);
  assert.deepEqual(
    read.map((r) => Number(r.value.toString('utf8', 0, 8).split(':')[0])),
    records.map((_, i) => i),
  );
});
