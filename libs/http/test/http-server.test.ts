import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { envelopeDocs, envelopeErrorShape } from './test-families.js';
import { createHttpServer, errorHandlerFor, parseOrThrow } from '@memstream/http';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { Lifecycle } from '@memstream/runtime';
import { captureLogger } from '../../../test/helpers/logger.js';
import { parsePrometheus, series, total } from '../../../test/helpers/prometheus.js';

const Body = z.object({ name: z.string().min(1), size: z.number().int().optional() });
const Query = z.object({ verbose: z.enum(['true', 'false']).default('false') });

async function server(t: TestContext, log = createLogger({ service: 'test', level: 'silent' })) {
  const metrics = new Metrics();
  const app = createHttpServer({
    log,
    lifecycle: new Lifecycle({ log, shutdownTimeoutMs: 1000 }),
    bodyLimitBytes: 1024,
    metrics,
    openapi: { title: 'test', description: 'a test API', families: [envelopeDocs] },
  });
  await app.register(async (family) => {
    family.setErrorHandler(errorHandlerFor(envelopeErrorShape));
    const docs = envelopeDocs.route({
      summary: 'Make a thing',
      querystring: Query,
      body: Body,
      responses: { 201: 'Made' },
    });
    family.post('/things', docs, async (request, reply) => reply.status(201).send(parseOrThrow(Body, request.body)));
    family.get<{ Params: { id: string } }>(
      '/things/:id',
      envelopeDocs.route({ summary: 'One thing' }),
      async (request) => ({ id: request.params.id }),
    );
  });
  t.after(() => app.close());
  return { app, metrics };
}

test('documented routes are not validated by fastify: bad input still gets the family error shape from parseOrThrow', async (t) => {
  const { app } = await server(t);
  const bad = await app.inject({ method: 'POST', url: '/things?verbose=maybe', payload: { size: 'big' } });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().status, 'failed');
  assert.equal(bad.json().message, 'Data format error: missing required field name');
  const good = await app.inject({ method: 'POST', url: '/things', payload: { name: 'x' } });
  assert.equal(good.statusCode, 201);
});

test('/docs/json documents each route from its zod schemas, with the family tag and error shape; probes are hidden', async (t) => {
  const { app } = await server(t);
  const res = await app.inject({ method: 'GET', url: '/docs/json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  assert.equal(doc.openapi, '3.1.0');
  assert.deepEqual(Object.keys(doc.paths).sort(), ['/things', '/things/{id}']);
  const post = doc.paths['/things'].post;
  assert.deepEqual(post.tags, ['Envelope']);
  assert.equal(post.summary, 'Make a thing');
  assert.deepEqual(
    post.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`),
    ['query:verbose'],
  );
  const body = post.requestBody.content['application/json'].schema;
  assert.deepEqual(body.required, ['name']);
  assert.equal(body.properties.size.type, 'integer');
  assert.equal(post.responses['201'].description, 'Made');
  assert.deepEqual(post.responses['4XX'].content['application/json'].schema.required, [
    'status',
    'code',
    'message',
    'timestamp',
    'path',
  ]);
  assert.deepEqual(
    doc.paths['/things/{id}'].get.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`),
    ['path:id'],
  );
  const ui = await app.inject({ method: 'GET', url: '/docs' });
  assert.equal(ui.statusCode, 200);
  assert.match(ui.headers['content-type'] as string, /text\/html/);
});

test('request durations are labelled with the route pattern, not the raw URL; /metrics serves the text format', async (t) => {
  const { app } = await server(t);
  for (const id of ['1', '2', '3'])
    assert.equal((await app.inject({ method: 'GET', url: `/things/${id}` })).statusCode, 200);
  assert.equal((await app.inject({ method: 'GET', url: '/nowhere/at/all' })).statusCode, 404);
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200);
  assert.match(res.headers['content-type'] as string, /^text\/plain; version=0\.0\.4/);
  const samples = parsePrometheus(res.body);
  const name = 'memstream_http_request_duration_seconds_count';
  assert.equal(total(samples, name, { method: 'GET', route: '/things/:id', status_code: '200' }), 3);
  assert.equal(total(samples, name, { route: 'unmatched', status_code: '404' }), 1);
  assert.deepEqual(
    series(samples, name).filter((s) => /\d/.test(s.labels['route']!)),
    [],
    'no raw ids in route labels',
  );
});

test('an incoming x-correlation-id (or x-request-id) becomes the request id, logged as correlationId and echoed back', async (t) => {
  const { log, lines } = captureLogger();
  const { app } = await server(t, log);
  const res = await app.inject({ method: 'GET', url: '/things/7', headers: { 'x-correlation-id': 'corr-abc' } });
  assert.equal(res.headers['x-request-id'], 'corr-abc');
  assert.ok(lines().some((l) => l['correlationId'] === 'corr-abc' && l['msg'] === 'request completed'));
  const other = await app.inject({ method: 'GET', url: '/things/7', headers: { 'x-request-id': 'req-xyz' } });
  assert.equal(other.headers['x-request-id'], 'req-xyz');
  const generated = await app.inject({
    method: 'GET',
    url: '/things/7',
    headers: { 'x-correlation-id': 'not valid!' },
  });
  assert.match(generated.headers['x-request-id'] as string, /^[0-9a-f-]{36}$/, 'an unusable id is replaced');
});
