import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAiEmbedder, type OpenAiEmbedderSettings } from '@memstream/embedding';
import { captureLogger } from '../../../test/helpers/logger.js';
import {
  FAKE_EMBEDDING_DIMENSIONS,
  fakeEmbedding,
  startModelServer,
  type ModelServer,
} from '../../../harness/model-server.js';

const { log } = captureLogger();

async function serve(t: { after: (fn: () => Promise<void>) => void }): Promise<ModelServer> {
  const server = await startModelServer();
  t.after(() => server.close());
  return server;
}

function settings(server: ModelServer, overrides: Partial<OpenAiEmbedderSettings> = {}): OpenAiEmbedderSettings {
  return {
    baseUrl: server.baseUrl,
    apiKey: undefined,
    model: 'fake-embed',
    dimensions: undefined,
    batchSize: 64,
    timeoutMs: 5000,
    maxRetries: 0,
    ...overrides,
  };
}

function unit(vector: readonly number[]): number[] {
  const norm = Math.hypot(...vector);
  return vector.map((x) => x / norm);
}

function assertClose(actual: Float32Array, expected: readonly number[]): void {
  assert.equal(actual.length, expected.length);
  expected.forEach((x, i) => assert.ok(Math.abs(actual[i]! - x) < 1e-6, `component ${i}: ${actual[i]} vs ${x}`));
}

test('texts go to the server in requests of the batch size, and come back normalised, in the caller order', async (t) => {
  const server = await serve(t);
  const embedder = await createOpenAiEmbedder(
    settings(server, { batchSize: 3, dimensions: FAKE_EMBEDDING_DIMENSIONS }),
    log,
  );
  const texts = Array.from({ length: 8 }, (_, i) => `text number ${i}`);
  const vectors = await embedder.embed(texts, 'document');
  assert.deepEqual(
    server.embeddingCalls.map((c) => c.input),
    [texts.slice(0, 3), texts.slice(3, 6), texts.slice(6)],
  );
  assert.equal(vectors.length, texts.length);
  texts.forEach((text, i) => assertClose(vectors[i]!, unit(fakeEmbedding(text))));
  assert.equal(embedder.model, `openai/fake-embed@${FAKE_EMBEDDING_DIMENSIONS}`);
});

test('without configured dimensions, one probe at creation learns them; with them, they are sent and no probe is made', async (t) => {
  const server = await serve(t);
  const probed = await createOpenAiEmbedder(settings(server), log);
  assert.equal(probed.dimension, FAKE_EMBEDDING_DIMENSIONS);
  assert.equal(probed.model, 'openai/fake-embed');
  assert.equal(server.embeddingCalls.length, 1, 'one probe');
  assert.equal(server.embeddingCalls[0]!.dimensions, undefined);

  const shortened = await createOpenAiEmbedder(settings(server, { dimensions: 5 }), log);
  assert.equal(server.embeddingCalls.length, 1, 'no probe when the dimension is configured');
  const [vector] = await shortened.embed(['a text'], 'query');
  assert.equal(shortened.dimension, 5);
  assert.equal(vector!.length, 5);
  assert.equal(server.embeddingCalls[1]!.dimensions, 5);
});

test('a 429 is retried after the server-given delay and the call succeeds', async (t) => {
  const server = await serve(t);
  const embedder = await createOpenAiEmbedder(
    settings(server, { dimensions: FAKE_EMBEDDING_DIMENSIONS, maxRetries: 2 }),
    log,
  );
  server.failNext(1, 429);
  const [vector] = await embedder.embed(['rate limited once'], 'document');
  assertClose(vector!, unit(fakeEmbedding('rate limited once')));
  assert.equal(server.embeddingCalls.length, 1, 'the failed attempt was not answered, the retry was');
});

test('a server error says whether retrying later can help', async (t) => {
  const server = await serve(t);
  const embedder = await createOpenAiEmbedder(settings(server, { dimensions: FAKE_EMBEDDING_DIMENSIONS }), log);
  server.failNext(1, 503);
  await assert.rejects(
    embedder.embed(['x'], 'document'),
    (err: { code?: string; retriable?: boolean }) => err.code === 'DEPENDENCY_UNAVAILABLE' && err.retriable === true,
  );
  server.failNext(1, 400);
  await assert.rejects(embedder.embed(['x'], 'document'), (err: { retriable?: boolean }) => err.retriable === false);
});

test('a text past the model input limit is embedded from its beginning; the texts beside it as they are', async (t) => {
  const server = await serve(t);
  const capture = captureLogger();
  const embedder = await createOpenAiEmbedder(settings(server, { dimensions: FAKE_EMBEDDING_DIMENSIONS }), capture.log);
  server.limitEmbeddingInput(100);
  const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
  const texts = ['a short one before', long, 'a short one after'];
  const vectors = await embedder.embed(texts, 'document');

  assertClose(vectors[0]!, unit(fakeEmbedding(texts[0]!)));
  assertClose(vectors[2]!, unit(fakeEmbedding(texts[2]!)));
  const taken = server.embeddingCalls.flatMap((c) => c.input).find((input) => input !== long && long.startsWith(input));
  assert.ok(taken !== undefined, 'a beginning of the long text was embedded');
  assert.ok(taken.split(' ').length <= 100 && taken.split(' ').length > 50, 'the longest half the model takes');
  assertClose(vectors[1]!, unit(fakeEmbedding(taken)));
  const warned = capture.lines().find((l) => String(l['msg']).includes('input limit'));
  assert.deepEqual([warned?.['chars'], warned?.['keptChars']], [long.length, taken.length]);
  assert.ok(!JSON.stringify(capture.lines()).includes('word1 '), 'no text reaches the log');
});

test('a refusal of short texts fails the call at once, without cutting or splitting them', async (t) => {
  const server = await serve(t);
  const embedder = await createOpenAiEmbedder(settings(server, { dimensions: FAKE_EMBEDDING_DIMENSIONS }), log);
  server.failNext(1, 400);
  await assert.rejects(
    embedder.embed(['one', 'two'], 'document'),
    (err: { retriable?: boolean }) => err.retriable === false,
  );
  assert.equal(server.failed.count, 1, 'one request, refused');
  assert.equal(server.embeddingCalls.length, 0, 'and nothing sent after it');
});
