/**
 * A record batch the consumer cannot decode: corrupt compressed bytes, or a codec's output that
 * does not hold the batch's records. kafkajs decodes a whole fetch at once, so one such batch
 * failing would fail the fetch of every partition it carried, again at every retry. Instead the
 * codec hands kafkajs stand-in records in its place, one per record of the batch, and the consumer
 * parks the partition at the first of them (kafka-bus.ts) until an operator skips the batch.
 */
export interface UndecodableBatch {
  readonly codec: string;
  readonly reason: string;
  /** Offsets of the batch's first and last records: the operator skips to `lastOffset` + 1. */
  readonly firstOffset: string;
  readonly lastOffset: string;
}

/** Bytes of a v2 record batch's header up to its records (Kafka's DefaultRecordBatch layout). */
const HEADER_BYTES = 61;
/** More stand-ins than a batch could really hold means the header was misread: fail as kafkajs would. */
const MAX_RECORDS = 1_000_000;

/**
 * Keyed by the stand-ins' own memory, which only this module allocates: a record a producer wrote
 * can never pass for one, whatever its bytes or headers.
 */
const standIns = new WeakMap<ArrayBufferLike, UndecodableBatch>();

interface BatchHeader {
  readonly count: number;
  readonly firstOffset: bigint;
  readonly lastOffsetDelta: number;
}

/**
 * The header of the batch whose records part is `records`. kafkajs hands a codec a view of the
 * fetch response, so the header sits just before it; each field is checked against the view
 * (magic 2, this codec, a length that ends where the view ends), and anything else reads as none.
 */
function headerBefore(records: Buffer, codecType: number): BatchHeader | undefined {
  if (records.byteOffset < HEADER_BYTES) return undefined;
  const header = Buffer.from(records.buffer, records.byteOffset - HEADER_BYTES, HEADER_BYTES);
  if (header.readInt8(16) !== 2 || (header.readInt16BE(21) & 0x07) !== codecType) return undefined;
  if (header.readInt32BE(8) !== HEADER_BYTES - 12 + records.length) return undefined;
  const count = header.readInt32BE(57);
  const lastOffsetDelta = header.readInt32BE(23);
  if (count <= 0 || count > MAX_RECORDS || lastOffsetDelta < count - 1) return undefined;
  return { count, firstOffset: header.readBigInt64BE(0), lastOffsetDelta };
}

/** Whether `bytes` is exactly `count` length-prefixed records, as a v2 batch's decompressed records part is. */
function holdsRecords(bytes: Buffer, count: number): boolean {
  let at = 0;
  for (let i = 0; i < count; i++) {
    const length = readVarint(bytes, at);
    if (!length || length.value < 0) return false;
    at = length.next + length.value;
    if (at > bytes.length) return false;
  }
  return at === bytes.length;
}

/**
 * A codec's output, checked: pure-JS decoders skip the checksums, so corrupt bytes may come out
 * as garbage rather than an error, and garbage would fail kafkajs's decoding of the whole fetch.
 */
export function checkedRecords(decompressed: Buffer, records: Buffer, codecType: number, codec: string): Buffer {
  const header = headerBefore(records, codecType);
  if (!header || holdsRecords(decompressed, header.count)) return decompressed;
  return standInsFor(header, codec, `the decompressed bytes do not hold the batch's ${header.count} records`);
}

/** Stand-ins for the batch whose records part `records` failed to decode; `err` again when there is no v2 header to read. */
export function markUndecodable(records: Buffer, codecType: number, codec: string, err: unknown): Buffer {
  const header = headerBefore(records, codecType);
  if (!header) throw err;
  return standInsFor(header, codec, err instanceof Error ? err.message : String(err));
}

/** The batch a record stands in for, when it is a stand-in. */
export function undecodableBatchOf(value: Buffer | null): UndecodableBatch | undefined {
  return value ? standIns.get(value.buffer) : undefined;
}

/**
 * `count` records of one byte each, no key and no headers, at offsets first, first+1, … and the
 * batch's last offset for the last one, so whichever of them a fetch starts at names the batch.
 */
function standInsFor(header: BatchHeader, codec: string, reason: string): Buffer {
  const parts: number[] = [];
  for (let i = 0; i < header.count; i++) {
    const delta = i === header.count - 1 ? header.lastOffsetDelta : i;
    // attributes, timestamp delta 0, offset delta, null key (-1), value of length 1, the value, no headers
    const body = [0, 0, ...varint(delta), ...varint(-1), ...varint(1), 0, ...varint(0)];
    parts.push(...varint(body.length), ...body);
  }
  const bytes = Buffer.alloc(parts.length);
  bytes.set(parts);
  const first = header.firstOffset;
  standIns.set(bytes.buffer, {
    codec,
    reason,
    firstOffset: first.toString(),
    lastOffset: (first + BigInt(header.lastOffsetDelta)).toString(),
  });
  return bytes;
}

/** Kafka's zigzag varint. */
function varint(n: number): number[] {
  let z = (n << 1) ^ (n >> 31);
  const out: number[] = [];
  while ((z & ~0x7f) !== 0) {
    out.push((z & 0x7f) | 0x80);
    z >>>= 7;
  }
  out.push(z);
  return out;
}

function readVarint(bytes: Buffer, at: number): { value: number; next: number } | undefined {
  let z = 0;
  for (let shift = 0, i = at; i < bytes.length && shift <= 28; shift += 7, i++) {
    const b = bytes[i]!;
    z |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) return { value: (z >>> 1) ^ -(z & 1), next: i + 1 };
  }
  return undefined;
}
