import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { apiDocsOf, registerApi } from '@memstream/api';
import { ROUTES, servedByGateway, type Route } from '@memstream/client';
import { requestSchemaOf } from '@memstream/http';
import { docsServer } from '../harness/docs-server.js';
import { REPO_ROOT } from '../harness/processes.js';

/**
 * The client and the server agree when every operation the client calls is in openapi.json with
 * the same request schemas, and every operation openapi.json documents is one the client calls.
 * openapi.json is generated from the server's routes (and checked fresh by generate-openapi
 * --check), so a route added, moved or given another schema on either side fails here.
 */
interface Parameter {
  readonly in: 'query' | 'path' | 'header';
  readonly name: string;
  readonly required: boolean;
  readonly schema: Record<string, unknown>;
  readonly description?: string;
}
interface Operation {
  readonly parameters?: Parameter[];
  readonly requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
}
type Document = { paths: Record<string, Record<string, Operation>> };

const openapi = async (): Promise<Document> =>
  JSON.parse(await readFile(resolve(REPO_ROOT, 'openapi.json'), 'utf8')) as Document;

function clientRoutes(): Route[] {
  return Object.values(ROUTES).flatMap((family) => Object.values(family) as Route[]);
}

const keyOf = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/** A zod object as the OpenAPI parameters fastify-swagger makes of it (descriptions move onto the parameter). */
function parametersOf(
  schema: z.ZodType | undefined,
  where: Parameter['in'],
): Record<string, Omit<Parameter, 'in' | 'name'>> {
  if (!schema) return {};
  const part = ({ path: 'params', query: 'querystring', header: 'headers' } as const)[where];
  const json = requestSchemaOf(schema, part) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const out: Record<string, Omit<Parameter, 'in' | 'name'>> = {};
  for (const [name, property] of Object.entries(json.properties ?? {})) {
    const { description, ...rest } = property;
    const required = where === 'path' || (json.required ?? []).includes(name);
    out[name] = { required, schema: rest, ...(typeof description === 'string' ? { description } : {}) };
  }
  return out;
}

/**
 * The parameters a request carries: an object parameter of the query (form style and exploded, as
 * OpenAPI has them by default) is its fields, each a key of the query string of its own.
 */
function documentedParameters(op: Operation, where: Parameter['in']): Record<string, Omit<Parameter, 'in' | 'name'>> {
  const out: Record<string, Omit<Parameter, 'in' | 'name'>> = {};
  for (const p of op.parameters ?? []) {
    if (p.in !== where) continue;
    const fields = p.schema['properties'] as Record<string, Record<string, unknown>> | undefined;
    if (where === 'query' && p.schema['type'] === 'object' && fields) {
      const required = (p.schema['required'] as string[] | undefined) ?? [];
      for (const [name, field] of Object.entries(fields)) {
        const { description, ...schema } = field;
        out[name] = {
          required: p.required && required.includes(name),
          schema,
          ...(typeof description === 'string' ? { description } : {}),
        };
      }
      continue;
    }
    out[p.name] = {
      required: p.required,
      schema: p.schema,
      ...(p.description !== undefined ? { description: p.description } : {}),
    };
  }
  return out;
}

test('the client calls exactly the operations openapi.json documents, no more and no fewer', async () => {
  const doc = await openapi();
  const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => keyOf(method, path)),
  );
  const called = clientRoutes().map((r) => keyOf(r.method, r.path));
  assert.equal(new Set(called).size, called.length, 'an operation appears twice in the client route table');
  assert.deepEqual([...called].sort(), [...documented].sort());
});

test("each client operation's path, query, header and body schemas are the ones openapi.json documents", async () => {
  const doc = await openapi();
  const disagreements: string[] = [];
  for (const route of clientRoutes()) {
    const at = keyOf(route.method, route.path);
    const op = doc.paths[route.path]?.[route.method.toLowerCase()];
    if (!op) continue; // the test above names it
    for (const [where, schema] of [
      ['path', route.params],
      ['query', route.query],
      ['header', route.headers],
    ] as const) {
      try {
        assert.deepEqual(parametersOf(schema, where), documentedParameters(op, where));
      } catch {
        disagreements.push(`${at}: ${where} parameters`);
      }
    }
    const bodies = Object.values(op.requestBody?.content ?? {}).map((c) => c.schema);
    const expected = route.body ? [requestSchemaOf(route.body, 'body')] : [];
    // A body documented under several media types (ARK's ndjson relay) has the same schema under each.
    if (
      !isDeepStrictEqual(
        expected,
        [...new Set(bodies.map((b) => JSON.stringify(b)))].map((b) => JSON.parse(b) as unknown),
      )
    ) {
      disagreements.push(`${at}: request body`);
    }
  }
  assert.deepEqual(disagreements, []);
});

/** The operations the ingest gateway serves: its own `/docs/json`, its routes registered with dependencies they never touch. */
async function gatewayOperations(): Promise<string[]> {
  const app = docsServer(apiDocsOf('gateway'));
  await registerApi(app, 'gateway', {} as never);
  const res = await app.inject({ method: 'GET', url: '/docs/json' });
  await app.close();
  return Object.entries(res.json<Document>().paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => keyOf(method, path)),
  );
}

test("the client sends to the ingest gateway exactly the gateway's routes: every family's writes", async () => {
  const gateway = clientRoutes()
    .filter(servedByGateway)
    .map((r) => keyOf(r.method, r.path));
  assert.deepEqual(gateway.sort(), (await gatewayOperations()).sort());
  assert.ok(gateway.includes('POST /messages') && !gateway.includes('POST /api/v1/memories/search'));
});

function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}
