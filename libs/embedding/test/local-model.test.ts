/**
 * The local model against an independent reference. fixtures/minilm-reference.json holds, for a
 * few texts, the token ids of Hugging Face's Rust tokenizer and the vectors of a float64 numpy
 * forward pass written from the BERT definition (fixtures/minilm-reference.py says how it was
 * made and how to remake it). Nothing of memstream's download, unzip, conversion or graph code
 * produced them, so a wrong weight layout, attention, GELU, LayerNorm, pooling or padding mask
 * fails here. The semantic checks hold for any decent sentence model whatever the reference.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalEmbedder, LOCAL_MODELS, type Embedder } from '@memstream/embedding';
import { loadBertTokenizer } from '../src/local/bert-tokenizer.js';
import { captureLogger } from '../../../test/helpers/logger.js';
import { installedDir } from './installed-dir.js';

interface Reference {
  readonly maxTokens: number;
  readonly texts: ReadonlyArray<{ text: string; ids: number[]; vector: number[] }>;
}

const reference = JSON.parse(
  readFileSync(new URL('./fixtures/minilm-reference.json', import.meta.url), 'utf8'),
) as Reference;
const texts = reference.texts.map((r) => r.text);
const model = LOCAL_MODELS['all-minilm-l6-v2'];
const modelDir = installedDir('all-minilm-l6-v2');
const { log } = captureLogger();
let embedder: Embedder;
let int8: Embedder;

before(async () => {
  embedder = await createLocalEmbedder({ model, modelDir, threads: 1, batchSize: 64, weights: 'float32' }, log);
  int8 = await createLocalEmbedder({ model, modelDir, threads: 1, batchSize: 16, weights: 'int8' }, log);
});
after(async () => {
  await embedder.close();
  await int8.close();
});

const PARAPHRASES: Array<[string, string, string]> = [
  ['How old is your dog?', 'What is the age of your puppy?', 'The stock market fell sharply today.'],
  [
    'Caroline went to an LGBTQ support group yesterday.',
    'Yesterday Caroline attended a support group for LGBTQ people.',
    'Melanie painted a sunrise over the lake last weekend.',
  ],
  ['I am moving to Sweden next month.', 'Next month I relocate to Sweden.', 'My favourite food is spicy ramen.'],
];

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const maxDifference = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
};

test('token ids match Hugging Face tokenizers on every reference text (accents, CJK, emoji, control characters, truncation)', async () => {
  const tokenizer = await loadBertTokenizer(modelDir, reference.maxTokens);
  for (const { text, ids } of reference.texts)
    assert.deepEqual(tokenizer.encode(text).ids, ids, JSON.stringify(text.slice(0, 60)));
  assert.ok(
    reference.texts.some((r) => r.ids.length === reference.maxTokens),
    'the reference includes a truncated text',
  );
});

test('vectors match the independent float64 forward pass within 1e-4 per component, all texts in one padded batch', async (t) => {
  const vectors = await embedder.embed(texts, 'document');
  assert.equal(embedder.dimension, 384);
  assert.equal(embedder.model, 'local/all-MiniLM-L6-v2');
  let worst = 0;
  reference.texts.forEach(({ text, vector }, i) => {
    const difference = maxDifference(vectors[i]!, vector);
    worst = Math.max(worst, difference);
    assert.ok(difference < 1e-4, `${JSON.stringify(text.slice(0, 40))}: off by ${difference}`);
  });
  t.diagnostic(`largest difference from the reference: ${worst.toExponential(2)}`);
});

// The int8 graph (the default) is an approximation of the same model: close to the reference in
// direction, exactly the same vector for a text whatever it is embedded with, and a model id of its own.
test('int8 weights: every reference text within cosine 0.95 of the float64 pass, 0.985 on average; its own model id', async (t) => {
  assert.equal(int8.model, 'local/all-MiniLM-L6-v2-int8');
  assert.equal(int8.dimension, 384);
  const vectors = await int8.embed(texts, 'document');
  const cosines = reference.texts.map(({ text, vector }, i) => {
    const v = vectors[i]!;
    assert.ok(Math.abs(dot(v, v) - 1) < 1e-5, 'unit length');
    const cosine = v.reduce((sum, x, k) => sum + x * vector[k]!, 0);
    assert.ok(cosine > 0.95, `${JSON.stringify(text.slice(0, 40))}: cosine ${cosine}`);
    return cosine;
  });
  const mean = cosines.reduce((a, b) => a + b, 0) / cosines.length;
  t.diagnostic(`cosine with the reference: mean ${mean.toFixed(4)}, lowest ${Math.min(...cosines).toFixed(4)}`);
  assert.ok(mean > 0.985, `mean cosine ${mean}`);
});

test('int8 weights: a text gets bit-for-bit the same vector alone, in a batch, and among long texts', async () => {
  const batched = await int8.embed(texts, 'document');
  const long = reference.texts.find((r) => r.ids.length === reference.maxTokens)!.text;
  for (const [i, text] of texts.entries()) {
    const [alone] = await int8.embed([text], 'query');
    const [, amongOthers] = await int8.embed([long, text, 'ok'], 'document');
    assert.deepEqual(alone, batched[i], JSON.stringify(text.slice(0, 40)));
    assert.deepEqual(amongOthers, batched[i], JSON.stringify(text.slice(0, 40)));
  }
});

test('int8 weights: a paraphrase still scores clearly higher than an unrelated pair', async () => {
  for (const [anchor, paraphrase, unrelated] of PARAPHRASES) {
    const [a, p, u] = (await int8.embed([anchor, paraphrase, unrelated], 'query')) as [
      Float32Array,
      Float32Array,
      Float32Array,
    ];
    assert.ok(
      dot(a, p) > 0.6 && dot(a, p) > dot(a, u) + 0.3,
      `${anchor}: paraphrase ${dot(a, p).toFixed(3)}, unrelated ${dot(a, u).toFixed(3)}`,
    );
  }
});

test('a text embeds the same alone as padded in a batch with longer ones (padding is masked)', async () => {
  const batched = await embedder.embed(texts, 'document');
  for (const [i, text] of texts.entries()) {
    const [alone] = await embedder.embed([text], 'document');
    assert.ok(maxDifference(alone!, batched[i]!) < 1e-4, JSON.stringify(text.slice(0, 40)));
  }
});

test('vectors are unit length', async () => {
  for (const vector of await embedder.embed([...texts, 'ok', 'x'.repeat(5000)], 'document'))
    assert.ok(Math.abs(dot(vector, vector) - 1) < 1e-5);
});

test('a paraphrase scores clearly higher than an unrelated pair', async () => {
  for (const [anchor, paraphrase, unrelated] of PARAPHRASES) {
    const [a, p, u] = (await embedder.embed([anchor, paraphrase, unrelated], 'query')) as [
      Float32Array,
      Float32Array,
      Float32Array,
    ];
    assert.ok(
      dot(a, p) > 0.6 && dot(a, p) > dot(a, u) + 0.3,
      `${anchor}: paraphrase ${dot(a, p).toFixed(3)}, unrelated ${dot(a, u).toFixed(3)}`,
    );
  }
});

test('a text past 256 tokens is embedded from its beginning: what follows the limit changes nothing', async () => {
  const long = reference.texts.find((r) => r.ids.length === reference.maxTokens)!.text;
  const [cut, extended] = await embedder.embed(
    [long, `${long} Then the talk turned to quantum physics and tax law.`],
    'document',
  );
  assert.ok(maxDifference(cut!, extended!) < 1e-6);
});

test('concurrent calls each get their own vectors, in their own order', async () => {
  const expected = reference.texts.map((r) => r.vector);
  const orders = [
    [0, 1, 2],
    [9, 3],
    [5, 4, 10, 8, 7, 6],
    [2, 2, 1],
  ];
  const results = await Promise.all(
    orders.map((order) =>
      embedder.embed(
        order.map((i) => texts[i]!),
        'document',
      ),
    ),
  );
  orders.forEach((order, call) =>
    order.forEach((i, k) => assert.ok(maxDifference(results[call]![k]!, expected[i]!) < 1e-4)),
  );
  assert.deepEqual(await embedder.embed([], 'query'), []);
});

test('without an installed model, creation fails and says how to install it', async () => {
  await assert.rejects(
    createLocalEmbedder(
      { model, modelDir: join(tmpdir(), 'memstream-no-model-here'), threads: 1, batchSize: 8, weights: 'float32' },
      log,
    ),
    (err: Error) => /no model installed/.test(err.message) && /npm ci/.test(err.message),
  );
});

test('a model file that onnxruntime cannot load fails the first call with the reason, and the next call tries again; a closed embedder refuses calls', async (t) => {
  const broken = await mkdtemp(join(tmpdir(), 'memstream-broken-model-'));
  t.after(() => rm(broken, { recursive: true, force: true }));
  await cp(modelDir, broken, { recursive: true });
  // Same size, so only loading it can tell: the quick start-up check compares sizes.
  const onnx = join(broken, 'model.onnx');
  const bytes = await readFile(onnx);
  bytes.fill(0xff, 0, 64);
  await writeFile(onnx, bytes);
  const failing = await createLocalEmbedder(
    { model, modelDir: broken, threads: 1, batchSize: 8, weights: 'float32' },
    log,
  );
  t.after(() => failing.close());
  await assert.rejects(failing.embed(['first'], 'query'), /could not load the local embedding model/);
  await assert.rejects(failing.embed(['second'], 'document'), /could not load the local embedding model/);

  const closing = await createLocalEmbedder({ model, modelDir, threads: 1, batchSize: 8, weights: 'float32' }, log);
  await closing.close();
  await assert.rejects(closing.embed(['too late'], 'query'), /closed/);
});

test('creating the embedder starts no thread and loads no model; concurrent first calls load it once', async () => {
  const capture = captureLogger();
  const threads = () => readdirSync('/proc/self/task').length;
  // libuv starts its file-system thread pool on first use; the creation reads files, so start it first
  await readFile(join(modelDir, 'config.json'));
  // the inference thread of an embedder an earlier test closed may still be ending: count once
  // the number has held for a few reads
  let before = threads();
  for (let same = 0, tries = 0; same < 3 && tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = threads();
    same = now === before ? same + 1 : 0;
    before = now;
  }
  const lazy = await createLocalEmbedder(
    { model, modelDir, threads: 1, batchSize: 2, weights: 'float32' },
    capture.log,
  );
  try {
    // a Worker starts its thread in its constructor, so a load begun in the background shows here
    assert.equal(threads(), before, 'no inference thread before the first call');
    assert.equal(lazy.dimension, 384);
    const loads = () => capture.lines().filter((l) => l['msg'] === 'local embedding model loaded').length;
    assert.equal(loads(), 0);
    const calls = await Promise.all([
      lazy.embed(texts.slice(0, 3), 'document'),
      lazy.embed([texts[4]!], 'query'),
      lazy.embed(texts.slice(5, 9), 'document'),
    ]);
    assert.deepEqual(
      calls.map((vectors) => vectors.length),
      [3, 1, 4],
    );
    assert.ok(maxDifference(calls[1]![0]!, reference.texts[4]!.vector) < 1e-4);
    assert.equal(loads(), 1, 'one load shared by the concurrent first calls');
  } finally {
    await lazy.close();
  }
});
