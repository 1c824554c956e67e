import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as lz4 from 'lz4js';
import { registerKafkaCodecs } from '../src/kafka-codecs.js';
import { undecodableBatchOf } from '../src/undecodable-batch.js';

// kafkajs's own decoder of a v2 record batch, as its fetch runs it on every batch of a response
const require = createRequire(import.meta.url);
const Decoder = require('kafkajs/src/protocol/decoder.js');
const decodeRecordBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder.js');

const LZ4 = 3;
const ZSTD = 4;

interface Decoded {
  offset: string;
  value: Buffer | null;
}

/** A v2 batch as the broker serves it (the fields kafkajs does not read left zero), decoded by kafkajs. */
async function decode(codec: number, firstOffset: bigint, count: number, lastOffsetDelta: number, records: Buffer) {
  registerKafkaCodecs();
  const header = Buffer.alloc(61);
  header.writeBigInt64BE(firstOffset, 0);
  header.writeInt32BE(49 + records.length, 8);
  header.writeInt8(2, 16);
  header.writeInt16BE(codec, 21);
  header.writeInt32BE(lastOffsetDelta, 23);
  header.writeInt32BE(count, 57);
  const batch = await decodeRecordBatch(new Decoder(Buffer.concat([header, records])));
  return batch.records as Decoded[];
}

/** One record of a v2 batch's records part: no key, `value`, no headers, at `offsetDelta` (< 64). */
function record(offsetDelta: number, value: string): Buffer {
  const bytes = Buffer.from(value);
  const body = Buffer.concat([Buffer.from([0, 0, offsetDelta * 2, 1, bytes.length * 2]), bytes, Buffer.from([0])]);
  return Buffer.concat([Buffer.from([body.length * 2]), body]);
}

test('an lz4 batch decodes to its records', async () => {
  const records = Buffer.concat([record(0, 'first'), record(1, 'second')]);
  const decoded = await decode(LZ4, 7n, 2, 1, Buffer.from(lz4.compress(records)));
  assert.deepEqual(
    decoded.map((r) => [r.offset, r.value?.toString()]),
    [
      ['7', 'first'],
      ['8', 'second'],
    ],
  );
  assert.ok(decoded.every((r) => undecodableBatchOf(r.value) === undefined));
});

// Without the stand-ins kafkajs throws here, and one such batch failed the whole fetch: every
// partition it carried stopped, at each of kafkajs's retries.
test('corrupt zstd bytes decode to one stand-in per record, naming the batch and the reason', async () => {
  const decoded = await decode(ZSTD, 100n, 3, 4, Buffer.from('these bytes are not a zstd frame'));
  assert.deepEqual(
    decoded.map((r) => r.offset),
    ['100', '101', '104'],
    'the last stand-in sits at the batch last offset',
  );
  for (const r of decoded) {
    const batch = undecodableBatchOf(r.value);
    assert.ok(batch, `offset ${r.offset} stands in for the batch`);
    assert.equal(batch.codec, 'zstd');
    assert.equal(batch.firstOffset, '100');
    assert.equal(batch.lastOffset, '104');
    assert.ok(batch.reason.length > 0);
  }
});

// lz4js skips the frame's checksums: damaged bytes can come out as bytes, not as an error. Those
// bytes are not the batch's records, and kafkajs failed the whole fetch reading them as records.
test('a codec output that does not hold the batch records decodes to stand-ins too', async () => {
  const notRecords = Buffer.from(lz4.compress(Buffer.from('plain text, not length-prefixed records')));
  const decoded = await decode(LZ4, 0n, 2, 1, notRecords);
  assert.deepEqual(
    decoded.map((r) => undecodableBatchOf(r.value)?.reason),
    [
      "the decompressed bytes do not hold the batch's 2 records",
      "the decompressed bytes do not hold the batch's 2 records",
    ],
  );
});

test('a record a producer wrote never passes for a stand-in, whatever its bytes', async () => {
  const standIn = (await decode(ZSTD, 0n, 1, 0, Buffer.from('not zstd')))[0]!;
  assert.ok(undecodableBatchOf(standIn.value));
  // the same value, written by a producer in a plain batch
  const forged = await decode(0, 0n, 1, 0, record(0, '\u0000'));
  assert.deepEqual(forged[0]!.value, standIn.value);
  assert.equal(undecodableBatchOf(forged[0]!.value), undefined);
});
