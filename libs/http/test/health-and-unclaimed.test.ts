import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { apiFamily, createHttpServer, DefaultErrorBody, defaultErrorShape, type ErrorShape } from '@memstream/http';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { Lifecycle } from '@memstream/runtime';
import { envelopeDocs } from './test-families.js';

const log = createLogger({ service: 'test', level: 'silent' });
/** A family whose own errors come in the default shape (as one of ours does). */
const plainDocs = apiFamily('Plain', 'A family in the default error shape', {
  body: DefaultErrorBody,
  shape: defaultErrorShape,
  paths: ['/plain'],
});

function server(t: TestContext, unclaimedNotFound?: ErrorShape) {
  const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: 1000 });
  const app = createHttpServer({
    log,
    lifecycle,
    bodyLimitBytes: 1024,
    metrics: new Metrics(),
    openapi: {
      title: 'test',
      description: 'a test API',
      families: [envelopeDocs, plainDocs],
      ...(unclaimedNotFound ? { unclaimedNotFound } : {}),
    },
  });
  t.after(() => app.close());
  return { app, lifecycle };
}

test('GET /health answers the text OK once ready, and why not before; the probes keep their JSON', async (t) => {
  const { app, lifecycle } = server(t);
  const starting = await app.inject({ method: 'GET', url: '/health' });
  assert.equal(starting.statusCode, 503);
  assert.match(starting.headers['content-type'] as string, /^text\/plain/);
  assert.equal(starting.body, 'Service Unavailable: starting');
  lifecycle.markReady();
  const ready = await app.inject({ method: 'GET', url: '/health' });
  assert.equal(ready.statusCode, 200);
  assert.match(ready.headers['content-type'] as string, /^text\/plain/);
  assert.equal(ready.body, 'OK');
  assert.deepEqual((await app.inject({ method: 'GET', url: '/health/ready' })).json(), { status: 'ok' });
  assert.deepEqual((await app.inject({ method: 'GET', url: '/health/live' })).json(), { status: 'ok' });
});

test("a 404 on a path no family claims comes in the composition's body; a family's own paths keep its shape", async (t) => {
  const shape: ErrorShape = (error) => ({ error: 'Not found', code: error.code, message: error.message });
  const { app } = server(t, shape);
  const unclaimed = await app.inject({ method: 'GET', url: '/unknown?x=1' });
  assert.equal(unclaimed.statusCode, 404);
  assert.deepEqual(unclaimed.json(), {
    error: 'Not found',
    code: 'RESOURCE_NOT_FOUND',
    message: 'No such route: GET /unknown',
  });
  const owned = await app.inject({ method: 'GET', url: '/api/v1/unknown' });
  assert.equal(owned.statusCode, 404);
  assert.equal(owned.json().status, 'failed', 'the family that owns /api/v1 answers in its envelope');
  assert.deepEqual((await app.inject({ method: 'GET', url: '/plain/unknown' })).json(), {
    error: { code: 'RESOURCE_NOT_FOUND', message: 'No such route: GET /plain/unknown' },
  });

  // Without one, the default shape, as before.
  const { app: plain } = server(t);
  assert.deepEqual((await plain.inject({ method: 'GET', url: '/unknown' })).json(), {
    error: { code: 'RESOURCE_NOT_FOUND', message: 'No such route: GET /unknown' },
  });
});
