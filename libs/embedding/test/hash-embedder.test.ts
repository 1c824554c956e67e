import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { embeddingSettings, loadConfig } from '@memstream/config';
import { createEmbedder, createHashEmbedder } from '@memstream/embedding';
import { captureLogger } from '../../../test/helpers/logger.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

test('the hash provider is the default size, and the same text gives the same vector in any embedder, any call', async () => {
  const { log } = captureLogger();
  const embedder = await createEmbedder(loadConfig(z.object(embeddingSettings), { EMBEDDING_PROVIDER: 'hash' }), log);
  assert.equal(embedder.dimension, 256);
  assert.equal(embedder.model, 'hash/bow-v1-256');
  const text = 'Caroline went to the LGBTQ support group on 7 May 2023.';
  const [first, second] = await embedder.embed([text, text], 'document');
  const [again] = await createHashEmbedder({ dimension: 256 }).embed([text], 'query');
  assert.deepEqual(first, second);
  assert.deepEqual(first, again);
});

test('the hashing scheme is pinned: a change to it changes stored vectors and needs a new model id', async () => {
  const [vector] = await createHashEmbedder({ dimension: 256 }).embed(['the cat saw the other cat'], 'document');
  const buckets = [...vector!.entries()].filter(([, x]) => x !== 0).map(([i, x]) => [i, Math.round(x * 1e4) / 1e4]);
  // "the" and "cat" twice (weight 1 + ln 2), "saw" and "other" once, each with its bucket's sign.
  assert.deepEqual(buckets, [
    [69, -0.3596],
    [91, 0.3596],
    [156, -0.6088],
    [248, -0.6088],
  ]);
});

test('hash vectors are unit length, empty texts included, and shared words score higher than none', async () => {
  const embedder = createHashEmbedder({ dimension: 64 });
  const vectors = await embedder.embed(
    ['the pottery class on Sunday', 'pottery class', 'quarterly tax filing', '', '   !!! '],
    'document',
  );
  for (const v of vectors) {
    assert.equal(v.length, 64);
    assert.ok(Math.abs(dot(v, v) - 1) < 1e-6);
  }
  const [class1, class2, tax, empty, punctuation] = vectors as [
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
  ];
  assert.ok(dot(class1, class2) > dot(class1, tax) + 0.3, 'shared words bring texts together');
  assert.deepEqual(empty, punctuation, 'texts without words share one direction');
});
