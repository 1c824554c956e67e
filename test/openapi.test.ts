import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ApiDocsOptions } from '@memstream/http';
import { apiDocsOf, registerApi } from '@memstream/api';
import { docsServer } from '../harness/docs-server.js';
import { REPO_ROOT } from '../harness/processes.js';

interface Operation {
  summary?: string;
  tags?: string[];
}
type Document = { paths: Record<string, Record<string, Operation>> };

const checkedIn = async (): Promise<Document> =>
  JSON.parse(await readFile(resolve(REPO_ROOT, 'openapi.json'), 'utf8')) as Document;

/** One API service's `/docs/json`, its routes registered with dependencies they never touch. */
async function servedDocument(
  docs: ApiDocsOptions,
  register: (app: FastifyInstance) => Promise<void>,
): Promise<Document> {
  const app = docsServer(docs);
  await register(app);
  const res = await app.inject({ method: 'GET', url: '/docs/json' });
  await app.close();
  assert.equal(res.statusCode, 200);
  return res.json<Document>();
}

test('every operation in openapi.json is documented: a summary and its API family tag', async () => {
  const doc = await checkedIn();
  const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ at: `${method} ${path}`, op })),
  );
  assert.ok(operations.length >= 15);
  const undocumented = operations.filter(({ op }) => !op.summary || op.tags?.length !== 1).map(({ at }) => at);
  assert.deepEqual(undocumented, [], 'routes registered without family.route({...})');
});

test('every answer documents its body: each 2xx but a 204 has a schema for each media type it sends', async () => {
  const doc = (await checkedIn()) as unknown as {
    paths: Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, { schema?: object }> }> }>
    >;
  };
  const withoutBody = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).flatMap(([method, op]) =>
      Object.entries(op.responses)
        .filter(([status]) => status.startsWith('2') && status !== '204')
        .filter(([, answer]) => {
          const media = Object.values(answer.content ?? {});
          return media.length === 0 || media.some((m) => Object.keys(m.schema ?? {}).length === 0);
        })
        .map(([status]) => `${method.toUpperCase()} ${path} ${status}`),
    ),
  );
  assert.deepEqual(withoutBody, [], 'answers documented in words only: give the route a response schema');
});

test("the gateway's and the read API's own documents are their parts of openapi.json, and together all of it", async () => {
  const none = {} as never;
  const gateway = await servedDocument(apiDocsOf('gateway'), (app) => registerApi(app, 'gateway', none));
  const readApi = await servedDocument(apiDocsOf('read'), (app) => registerApi(app, 'read', none));
  const whole = await checkedIn();
  for (const part of [gateway, readApi]) {
    for (const [path, ops] of Object.entries(part.paths)) {
      for (const [method, op] of Object.entries(ops))
        assert.deepEqual(op, whole.paths[path]?.[method], `${method} ${path}`);
    }
  }
  const count = (d: Document) => Object.values(d.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
  assert.equal(count(gateway) + count(readApi), count(whole));
  assert.ok(
    gateway.paths['/api/v1/memories']?.['post'] && !gateway.paths['/api/v1/memories']?.['get'],
    'the gateway documents only its routes: the writes',
  );
  assert.ok(
    readApi.paths['/messages']?.['get'] && !readApi.paths['/messages']?.['post'],
    'the read API documents only its routes: the reads',
  );
});
