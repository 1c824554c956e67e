import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { envelopeDocs, envelopeErrorShape } from './test-families.js';
import { createHttpServer, errorHandlerFor, queryWithGetBody, type ZodTypeProvider } from '@memstream/http';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { Lifecycle } from '@memstream/runtime';
import { captureLogger } from '../../../test/helpers/logger.js';
import { parsePrometheus, series, total } from '../../../test/helpers/prometheus.js';

const Body = z.object({ name: z.string().min(1), size: z.number().int().optional() });
const Query = z.object({ verbose: z.enum(['true', 'false']).default('false') });
const Answer = z.object({ name: z.string() });

async function server(t: TestContext, log = createLogger({ service: 'test', level: 'silent' })) {
  const metrics = new Metrics();
  const app = createHttpServer({
    log,
    lifecycle: new Lifecycle({ log, shutdownTimeoutMs: 1000 }),
    bodyLimitBytes: 1024,
    metrics,
    openapi: { title: 'test', description: 'a test API', families: [envelopeDocs] },
  });
  await app.register(async (plain) => {
    const family = plain.withTypeProvider<ZodTypeProvider>();
    family.setErrorHandler(errorHandlerFor(envelopeErrorShape));
    const docs = envelopeDocs.route({
      summary: 'Make a thing',
      querystring: Query,
      body: Body,
      responses: { 201: 'Made' },
    });
    family.post('/things', docs, async (request, reply) =>
      reply.status(201).send({ ...request.body, verbose: request.query.verbose }),
    );
    // answers what the query asks for, to see what its response schema lets through
    family.get(
      '/answer',
      envelopeDocs.route({
        summary: 'An answer',
        querystring: z.object({ kind: z.enum(['extra', 'wrong']) }),
        responses: { 200: Answer },
      }),
      async (request) => (request.query.kind === 'extra' ? { name: 'a', secret: 's' } : { name: 1 }) as never,
    );
    // JSON through its schema, or the same answer as plain text, sent as it is
    family.get(
      '/either',
      envelopeDocs.route({
        summary: 'JSON or text',
        querystring: z.object({ as: z.enum(['json', 'text']) }),
        responses: {
          200: {
            description: 'The answer as JSON or as text',
            content: { 'application/json': Answer, 'text/plain': z.string() },
          },
        },
      }),
      async (request, reply) =>
        request.query.as === 'text'
          ? reply.type('text/plain').send('a, with its secret' as never)
          : ({ name: 'a', secret: 's' } as never),
    );
    // what pg throws when PostgreSQL goes away under a query, and a fault of our own
    family.get(
      '/fails',
      envelopeDocs.route({ summary: 'Fails', querystring: z.object({ how: z.enum(['store-gone', 'bug']) }) }),
      async (request) => {
        if (request.query.how === 'store-gone') throw new Error('Connection terminated unexpectedly');
        throw new Error('a bug that names a secret');
      },
    );
    // parameters in a GET's body, as EverMemOS's clients send them
    family.get('/lookup', envelopeDocs.route({ summary: 'Look up' }), async (request) => ({
      got: await queryWithGetBody(request),
    }));
    family.get<{ Params: { id: string } }>(
      '/things/:id',
      envelopeDocs.route({ summary: 'One thing' }),
      async (request) => ({ id: request.params.id }),
    );
  });
  t.after(() => app.close());
  return { app, metrics };
}

test('fastify validates a route with its zod schemas: bad input gets the family error shape, the handler the parsed value', async (t) => {
  const { app } = await server(t);
  const bad = await app.inject({ method: 'POST', url: '/things?verbose=maybe', payload: { size: 'big' } });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().status, 'failed');
  assert.equal(bad.json().message, 'Data format error: missing required field name');
  const badQuery = await app.inject({ method: 'POST', url: '/things?verbose=maybe', payload: { name: 'x' } });
  assert.equal(badQuery.statusCode, 400);
  assert.match(badQuery.json().message, /^Data format error: invalid field verbose/);
  const none = await app.inject({ method: 'POST', url: '/things' });
  assert.equal(none.statusCode, 400);
  assert.equal(none.json().message, 'Data format error: request body must be a JSON object');
  const good = await app.inject({ method: 'POST', url: '/things', payload: { name: 'x', extra: 1 } });
  assert.equal(good.statusCode, 201);
  assert.deepEqual(good.json(), { name: 'x', verbose: 'false' });
});

test("a number past a double's range or a prototype key is refused with 400 naming it, in a body and in a GET's body", async (t) => {
  const { app } = await server(t);
  // JSON.parse reads 1e400 as Infinity, which JSON.stringify (every write) turns into null
  const cases: Array<[string, string, string, RegExp]> = [
    ['POST', '/things', '{"name": "x", "size": 1e400}', /invalid field size: the number is past the range/],
    ['POST', '/things', '{"name": "x", "extra": {"at": [-1e400]}}', /invalid field extra\.at\.0: the number/],
    ['GET', '/lookup', '{"limit": 1e400}', /invalid field limit: the number/],
    ['GET', '/lookup', '{"filter": {"__proto__": {"admin": true}}}', /invalid field filter\.__proto__: the keys/],
    ['GET', '/lookup', '{"a": "x\\u0000y"}', /invalid field a: NUL/],
  ];
  for (const [method, url, payload, message] of cases) {
    const res = await app.inject({
      method: method as 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload,
    });
    assert.equal(res.statusCode, 400, `${method} ${payload}: ${res.body}`);
    assert.equal(res.json().status, 'failed');
    assert.match(res.json().message, message);
  }
  // the largest double, and numbers that only lose digits, are read as before
  const fine = await app.inject({
    method: 'GET',
    url: '/lookup',
    headers: { 'content-type': 'application/json' },
    payload: '{"max": 1.7976931348623157e308, "tiny": 5e-324}',
  });
  assert.equal(fine.statusCode, 200, fine.body);
  assert.deepEqual(fine.json().got, { max: Number.MAX_VALUE, tiny: 5e-324 });
});

test('an answer goes out through its response schema: undeclared fields are not sent, a wrong answer is a 500 without internals', async (t) => {
  const { app } = await server(t);
  const extra = await app.inject({ method: 'GET', url: '/answer?kind=extra' });
  assert.equal(extra.statusCode, 200);
  assert.deepEqual(extra.json(), { name: 'a' });
  const wrong = await app.inject({ method: 'GET', url: '/answer?kind=wrong' });
  assert.equal(wrong.statusCode, 500);
  assert.equal(wrong.json().status, 'failed');
  assert.equal(wrong.json().message, 'Internal error, please try again later');
});

test('an answer of several media types: JSON goes through its schema, another type is sent as the handler wrote it, and the document has both', async (t) => {
  const { app } = await server(t);
  const json = await app.inject({ method: 'GET', url: '/either?as=json' });
  assert.deepEqual(json.json(), { name: 'a' });
  const text = await app.inject({ method: 'GET', url: '/either?as=text' });
  assert.match(text.headers['content-type'] as string, /^text\/plain/);
  assert.equal(text.body, 'a, with its secret');
  const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
  const answer = doc.paths['/either'].get.responses['200'];
  assert.equal(answer.description, 'The answer as JSON or as text');
  assert.deepEqual(answer.content['application/json'].schema.required, ['name']);
  assert.equal(answer.content['text/plain'].schema.type, 'string');
});

test('a dependency that went away under a call answers 503 with Retry-After; any other failure 500, neither saying what failed', async (t) => {
  const { app } = await server(t);
  const gone = await app.inject({ method: 'GET', url: '/fails?how=store-gone' });
  assert.equal(gone.statusCode, 503);
  assert.equal(gone.headers['retry-after'], '5');
  assert.equal(gone.json().status, 'failed');
  assert.doesNotMatch(gone.body, /Connection terminated/);
  const bug = await app.inject({ method: 'GET', url: '/fails?how=bug' });
  assert.equal(bug.statusCode, 500);
  assert.doesNotMatch(bug.body, /secret/);
});

test('/docs/json documents each route from its zod schemas, with the family tag and error shape; probes are hidden', async (t) => {
  const { app } = await server(t);
  const res = await app.inject({ method: 'GET', url: '/docs/json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  assert.equal(doc.openapi, '3.1.0');
  assert.deepEqual(Object.keys(doc.paths).sort(), [
    '/answer',
    '/either',
    '/fails',
    '/lookup',
    '/things',
    '/things/{id}',
  ]);
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
