import type { Embedder } from './embedder.js';
import { toUnitVector } from './unit-vector.js';

/**
 * Feature hashing of a bag of words: no weights, no model, the same vector for the same text on
 * every machine and every version (the model id names the scheme, so a change to it gets a new
 * id). Texts sharing words score high, synonyms do not: a baseline to measure a model against,
 * and an embedder for tests that must not depend on one.
 *
 * Each lower-cased word (runs of letters and digits, NFKC-folded) is hashed to a bucket and a
 * sign; counts are damped (1 + ln n) so a repeated word does not drown the rest. The sign halves
 * the bias hash collisions add to dot products.
 */
export function createHashEmbedder(options: { dimension: number }): Embedder {
  const { dimension } = options;
  return {
    model: `hash/bow-v1-${dimension}`,
    dimension,
    embed: async (texts) => texts.map((text) => hashVector(text, dimension)),
    close: async () => {},
  };
}

function hashVector(text: string, dimension: number): Float32Array {
  const counts = new Map<string, number>();
  for (const [word] of text
    .normalize('NFKC')
    .toLowerCase()
    .matchAll(/[\p{L}\p{N}]+/gu)) {
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  // A text without words still needs a direction: it gets the one reserved for "no words".
  if (counts.size === 0) counts.set('', 1);
  const vector = new Float32Array(dimension);
  for (const [word, count] of counts) {
    const h = hash32(word);
    const bucket = (h & 0x7fffffff) % dimension;
    vector[bucket] = vector[bucket]! + (h < 0 ? -1 : 1) * (1 + Math.log(count));
  }
  // Two words can cancel out in one bucket; fall back to the empty text's direction then.
  return vector.some((x) => x !== 0) ? toUnitVector(vector) : hashVector('', dimension);
}

/** FNV-1a over UTF-16 code units, then murmur3's finaliser so every output bit depends on every input bit. */
function hash32(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}
