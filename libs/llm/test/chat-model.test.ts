import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createChatModel } from '@memstream/llm';
import { Metrics } from '@memstream/metrics';
import { startModelServer } from '../../../harness/model-server.js';
import { samplesOf, total } from '../../../test/helpers/prometheus.js';

/** A chat model named `m` on a loopback stand-in for the model server, without retries, counting into metrics of its own. */
async function modelOnLoopback(t: TestContext) {
  const server = await startModelServer();
  t.after(() => server.close());
  const metrics = new Metrics();
  const model = createChatModel({
    baseUrl: server.baseUrl,
    apiKey: undefined,
    model: 'm',
    timeoutMs: 5000,
    maxRetries: 0,
    metrics,
  });
  return { server, metrics, model };
}

test('chat completions against an OpenAI-compatible server: text, token usage, and no listener left on the caller signal', async (t) => {
  const { server, metrics, model } = await modelOnLoopback(t);
  const longLived = new AbortController();
  for (let i = 0; i < 15; i++) {
    const done = await model.complete([{ role: 'user', content: `#${i} hello there` }], { signal: longLived.signal });
    assert.equal(done.text, `Summary covering messages #${i}-#${i} (1 new).`);
    assert.equal(done.inputTokens, server.calls[i]!.inputTokens);
  }
  assert.equal(
    getEventListeners(longLived.signal, 'abort').length,
    0,
    'a worker-long signal does not collect listeners',
  );

  const samples = await samplesOf(metrics);
  const labels = { model: 'm', operation: 'chat' };
  assert.equal(
    total(samples, 'memstream_model_tokens_total', { ...labels, kind: 'prompt' }),
    server.calls.reduce((n, c) => n + c.inputTokens, 0),
  );
  assert.ok(total(samples, 'memstream_model_tokens_total', { ...labels, kind: 'completion' }) > 0);
  assert.equal(total(samples, 'memstream_model_call_duration_seconds_count', { ...labels, outcome: 'ok' }), 15);
});

test('a model error says whether retrying later can help, and is counted by reason', async (t) => {
  const { server, metrics, model } = await modelOnLoopback(t);
  server.failNext(1, 503);
  await assert.rejects(
    model.complete([{ role: 'user', content: 'x' }]),
    (err: { code?: string; retriable?: boolean }) => err.code === 'DEPENDENCY_UNAVAILABLE' && err.retriable === true,
  );
  server.failNext(1, 400);
  await assert.rejects(
    model.complete([{ role: 'user', content: 'x' }], { operation: 'extract' }),
    (err: { retriable?: boolean }) => err.retriable === false,
  );

  const samples = await samplesOf(metrics);
  assert.equal(
    total(samples, 'memstream_model_call_errors_total', { model: 'm', operation: 'chat', reason: 'http_503' }),
    1,
  );
  assert.equal(
    total(samples, 'memstream_model_call_errors_total', { model: 'm', operation: 'extract', reason: 'http_400' }),
    1,
  );
  assert.equal(total(samples, 'memstream_model_tokens_total'), 0, 'a failed call reports no tokens');
});
