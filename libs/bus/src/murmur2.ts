/** Kafka's murmur2 constants: its seed and its multiplier. */
const SEED = 0x9747b28c;
const MIX = 0x5bd1e995;

/**
 * Kafka's murmur2 of some bytes, as a signed 32-bit integer: the hash its Java client, librdkafka's
 * `murmur2_random` and kafkajs's default partitioner place a keyed record with. kafkajs computes
 * it with 64-bit `Long` objects, a dozen allocations every four bytes of key; this is the same
 * arithmetic on 32-bit integers (only the low 32 bits of every product count, in both).
 */
export function murmur2(bytes: Uint8Array): number {
  const length = bytes.length;
  const whole = length & ~3;
  let h = SEED ^ length;
  for (let i = 0; i < whole; i += 4) {
    let k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    k = Math.imul(k, MIX);
    k ^= k >>> 24;
    k = Math.imul(k, MIX);
    h = Math.imul(h, MIX) ^ k;
  }
  const rest = length & 3;
  if (rest === 3) h ^= bytes[whole + 2]! << 16;
  if (rest >= 2) h ^= bytes[whole + 1]! << 8;
  if (rest >= 1) h = Math.imul(h ^ bytes[whole]!, MIX);
  h ^= h >>> 13;
  h = Math.imul(h, MIX);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition of `partitions` Kafka's default partitioner gives a record keyed `key` (its UTF-8 bytes, for a string). */
export function keyedPartition(key: string | Uint8Array, partitions: number): number {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  return (murmur2(bytes) & 0x7fffffff) % partitions;
}
