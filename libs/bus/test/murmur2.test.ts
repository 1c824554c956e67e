import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { keyedPartition, murmur2 } from '../src/murmur2.js';
import { PartitionWitness } from '../src/unanswered-partitions.js';

const metadata = (n: number): PartitionMetadata[] =>
  Array.from({ length: n }, (_, partitionId) => ({
    partitionId,
    leader: partitionId % 3,
    partitionErrorCode: 0,
    replicas: [0, 1, 2],
    isr: [0, 1, 2],
  }));

/** Keys of every length up to 70, of ASCII, of two-, three- and four-byte characters, and of raw bytes. */
function keys(): Array<string | Buffer> {
  let seed = 7;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed;
  };
  const alphabet = ['a', 'Z', '0', '-', ':', 'é', 'ß', '群', '聊', '😀', '\u0000'];
  const out: Array<string | Buffer> = ['', 'a', 'ab', 'abc', 'abcd', 'group-1'];
  for (let length = 0; length <= 70; length++) {
    for (let variant = 0; variant < 12; variant++) {
      out.push(Array.from({ length }, () => alphabet[next() % (variant < 6 ? 5 : alphabet.length)]).join(''));
      out.push(Buffer.from(Array.from({ length }, () => next() & 0xff)));
    }
  }
  return out;
}

// The reference is kafkajs's own partitioner, which the gateway and converter used before: a
// record placed elsewhere than before would be read out of order with its group's earlier ones.
test('a keyed record lands on the partition kafkajs’s default partitioner gives it, for any key and partition count', () => {
  const reference = Partitioners.DefaultPartitioner();
  const ours = new PartitionWitness().createPartitioner();
  let compared = 0;
  for (const partitions of [1, 2, 3, 8, 12, 64, 1000]) {
    const partitionMetadata = metadata(partitions);
    for (const key of keys()) {
      const message = { key, value: 'v' };
      const expected = reference({ topic: 't', partitionMetadata, message });
      assert.equal(keyedPartition(key, partitions), expected, `key ${JSON.stringify(String(key))} of ${partitions}`);
      assert.equal(ours({ topic: 't', partitionMetadata, message }), expected);
      compared++;
    }
  }
  assert.ok(compared > 10_000);
});

// Figures Kafka's own tests give for its murmur2 (org.apache.kafka.common.utils.Utils).
test('murmur2 gives the hashes Kafka gives', () => {
  const cases: Array<[string, number]> = [
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ['abc', 479470107],
  ];
  for (const [text, hash] of cases) assert.equal(murmur2(Buffer.from(text, 'latin1')), hash, text);
});

test('a record with a partition of its own keeps it, and one without a key is spread by kafkajs', () => {
  const partitioner = new PartitionWitness().createPartitioner();
  const partitionMetadata = metadata(8);
  assert.equal(
    partitioner({ topic: 't', partitionMetadata, message: { key: 'group-1', value: 'v', partition: 5 } }),
    5,
  );
  const spread = new Set(
    Array.from({ length: 64 }, () => partitioner({ topic: 't', partitionMetadata, message: { value: 'v' } })),
  );
  assert.ok(spread.size > 1, 'keyless records go round the partitions');
});
