import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProduceQueue, type TopicRecords } from '../src/produce-queue.js';

const record = (n: number, bytes: number) => ({ key: `k${n}`, value: 'x'.repeat(bytes) });

// A flush's stored events are one call; two large messages among them made one request past the
// broker's record-batch limit, which failed whole. A call past the limits goes as several requests.
test('a call past the byte limit goes out in consecutive requests within it, in order', async () => {
  const requests: TopicRecords[][] = [];
  const queue = new ProduceQueue(
    async (batch) => {
      requests.push(batch.map((t) => ({ topic: t.topic, records: [...t.records] })));
    },
    { maxRecords: 100, maxBytes: 1_000 },
  );
  const records = [record(0, 100), record(1, 700), record(2, 700), record(3, 100), record(4, 1_500), record(5, 10)];
  await queue.enqueue('t', records);
  const keys = requests.map((r) => r.flatMap((t) => t.records.map((x) => x.key)));
  assert.deepEqual(keys, [['k0', 'k1'], ['k2', 'k3'], ['k4'], ['k5']]);
});

test('a call past the record limit goes out in requests of at most that many', async () => {
  const sizes: number[] = [];
  const queue = new ProduceQueue(
    async (batch) => {
      sizes.push(batch.reduce((n, t) => n + t.records.length, 0));
    },
    { maxRecords: 3, maxBytes: 1_000_000 },
  );
  await queue.enqueue(
    't',
    Array.from({ length: 8 }, (_, i) => record(i, 1)),
  );
  assert.deepEqual(sizes, [3, 3, 2]);
});

test('a failed part fails the call', async () => {
  let calls = 0;
  const queue = new ProduceQueue(
    async () => {
      calls += 1;
      if (calls === 2) throw new Error('broker refused');
    },
    { maxRecords: 1, maxBytes: 1_000_000 },
  );
  await assert.rejects(queue.enqueue('t', [record(0, 1), record(1, 1), record(2, 1)]), /broker refused/);
});
