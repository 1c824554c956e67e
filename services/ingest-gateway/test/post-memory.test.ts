import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBus, type Bus } from '@memstream/bus';
import { createHttpServer } from '@memstream/http';
import { Lifecycle } from '@memstream/runtime';
import { createLogger } from '@memstream/logging';
import { registerGateway } from '@memstream/ingest-gateway';

const log = createLogger({ service: 'test', level: 'silent' });

async function app(bus: Bus) {
  const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: 1000 });
  const server = createHttpServer({ log, lifecycle, bodyLimitBytes: 64 * 1024 });
  await registerGateway(server, { bus });
  lifecycle.markReady();
  return server;
}

const valid = { group_id: 'g', message_id: 'm1', create_time: '2025-01-15T10:00:00', sender: 'u', content: 'hi' };

test('rejections use the EverMemOS envelope, name the field, and publish nothing', async (t) => {
  const bus = new MemoryBus(log, 1);
  const published: unknown[] = [];
  await bus.subscribe({
    groupId: 'probe', topic: 'ingest.group-chat-message.v1', dlqTopic: 'x.dlq',
    retry: { maxAttempts: 1, initialDelayMs: 1, maxDelayMs: 1 }, handler: async (r) => void published.push(r),
  });
  const server = await app(bus);
  t.after(() => server.close());
  const cases: Array<[string, string, RegExp]> = [
    ['missing message_id', JSON.stringify({ ...valid, message_id: undefined }), /missing required field message_id/],
    ['bad create_time', JSON.stringify({ ...valid, create_time: 'yesterday' }), /invalid field create_time/],
    ['refer_list not an array', JSON.stringify({ ...valid, refer_list: 'm0' }), /invalid field refer_list/],
    ['not JSON', '{"message_id": ', /Invalid request/],
    ['a JSON array', '[]', /invalid field|must be a JSON object/],
  ];
  for (const [label, payload, pattern] of cases) {
    const res = await server.inject({ method: 'POST', url: '/api/v1/memories?x=1', headers: { 'content-type': 'application/json' }, payload });
    assert.equal(res.statusCode, 400, label);
    const body = res.json() as Record<string, string>;
    assert.equal(body['status'], 'failed', label);
    assert.equal(body['code'], 'INVALID_PARAMETER', label);
    assert.match(body['message']!, pattern, label);
    assert.equal(body['path'], '/api/v1/memories', label);
    assert.ok(!Number.isNaN(Date.parse(body['timestamp']!)), label);
  }
  const ok = await server.inject({ method: 'POST', url: '/api/v1/memories', payload: valid });
  assert.equal(ok.statusCode, 202);
  await new Promise((r) => setImmediate(r));
  assert.equal(published.length, 1, 'only the valid message was published');
  await bus.close();
});

test('a broker that refuses the publish answers 503 with Retry-After and no internals', async (t) => {
  const failing: Bus = {
    kind: 'kafka',
    ensureTopics: async () => undefined,
    publish: async () => { throw new Error('KafkaJSConnectionError: connect ECONNREFUSED 10.0.0.1:9092'); },
    subscribe: async () => { throw new Error('unused'); },
    close: async () => undefined,
  };
  const server = await app(failing);
  t.after(() => server.close());
  const res = await server.inject({ method: 'POST', url: '/api/v1/memories', payload: valid });
  assert.equal(res.statusCode, 503);
  assert.equal(res.headers['retry-after'], '5');
  assert.doesNotMatch(res.body, /ECONNREFUSED|10\.0\.0\.1/);
  assert.equal((res.json() as { status: string }).status, 'failed');
});
