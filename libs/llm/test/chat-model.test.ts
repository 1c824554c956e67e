import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createChatModel } from '@memstream/llm';
import { startModelServer } from '../../../test/helpers/model-server.js';

test('chat completions against an OpenAI-compatible server: text, token usage, and no listener left on the caller signal', async (t) => {
  const server = await startModelServer();
  t.after(() => server.close());
  const model = createChatModel({ baseUrl: server.baseUrl, apiKey: undefined, model: 'm', timeoutMs: 5000, maxRetries: 0 });
  const longLived = new AbortController();
  for (let i = 0; i < 15; i++) {
    const done = await model.complete([{ role: 'user', content: `#${i} hello there` }], { signal: longLived.signal });
    assert.equal(done.text, `Summary covering messages #${i}-#${i} (1 new).`);
    assert.equal(done.inputTokens, server.calls[i]!.inputTokens);
  }
  assert.equal(getEventListeners(longLived.signal, 'abort').length, 0, 'a worker-long signal does not collect listeners');
});

test('a model error says whether retrying later can help', async (t) => {
  const server = await startModelServer();
  t.after(() => server.close());
  const model = createChatModel({ baseUrl: server.baseUrl, apiKey: undefined, model: 'm', timeoutMs: 5000, maxRetries: 0 });
  server.failNext(1, 503);
  await assert.rejects(model.complete([{ role: 'user', content: 'x' }]), (err: { code?: string; retriable?: boolean }) => err.code === 'DEPENDENCY_UNAVAILABLE' && err.retriable === true);
  server.failNext(1, 400);
  await assert.rejects(model.complete([{ role: 'user', content: 'x' }]), (err: { retriable?: boolean }) => err.retriable === false);
});
