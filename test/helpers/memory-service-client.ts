import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { credentialsFor } from '../../harness/credentials.js';
import { REPO_ROOT } from '../../harness/processes.js';

/**
 * A client of the memory-service written against its January 2026 OpenAPI files (the main one and
 * the admin one), the ones its own clients are generated from: an operation is called by its
 * operationId with the file's path and method, and every answer with a documented body is
 * validated against the file's schema for it. So a response our server shapes differently from
 * the real service fails the test.
 */
interface Spec {
  paths: Record<
    string,
    Record<
      string,
      { operationId?: string; responses?: Record<string, { content?: { 'application/json'?: { schema?: unknown } } }> }
    >
  >;
  components: { schemas: Record<string, unknown> };
}

/** OpenAPI 3.0's `nullable` (which the file uses) as JSON Schema's type lists, for ajv. */
function jsonSchema(node: unknown, id: string): unknown {
  if (Array.isArray(node)) return node.map((n) => jsonSchema(n, id));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example' || key === 'nullable') continue;
    out[key] =
      key === '$ref' ? String(value).replace('#/components/schemas/', `${id}#/definitions/`) : jsonSchema(value, id);
  }
  const n = node as { nullable?: boolean; type?: string; $ref?: string; allOf?: unknown };
  if (n.nullable && typeof n.type === 'string') out['type'] = [n.type, 'null'];
  else if (n.nullable && (n.$ref || n.allOf)) return { anyOf: [out, { type: 'null' }] };
  return out;
}

const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });

interface SpecFile {
  readonly id: string;
  readonly operations: Map<string, { method: string; path: string; responses: Record<string, unknown> }>;
  readonly validators: Map<string, ValidateFunction>;
}

function loadSpec(file: string, id: string): SpecFile {
  const spec = parse(readFileSync(resolve(REPO_ROOT, '../shared/specs', file), 'utf8')) as Spec;
  const operations: SpecFile['operations'] = new Map();
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (op.operationId)
        operations.set(op.operationId, { method: method.toUpperCase(), path, responses: op.responses ?? {} });
    }
  }
  ajv.addSchema({ $id: id, definitions: jsonSchema(spec.components.schemas, id) });
  return { id, operations, validators: new Map() };
}

const MAIN = loadSpec('memory-service-openapi-2026-01.yml', 'ms');
const ADMIN = loadSpec('memory-service-openapi-admin-2026-01.yml', 'msadmin');

function validatorFor(spec: SpecFile, operationId: string, status: number): ValidateFunction | undefined {
  const key = `${operationId}:${status}`;
  if (!spec.validators.has(key)) {
    const op = spec.operations.get(operationId)!;
    const schema = (
      op.responses[String(status)] as { content?: { 'application/json'?: { schema?: unknown } } } | undefined
    )?.content?.['application/json']?.schema;
    if (schema === undefined) return undefined;
    spec.validators.set(key, ajv.compile(jsonSchema(schema, spec.id) as object));
  }
  return spec.validators.get(key);
}

export interface MemoryServiceReply<T> {
  readonly status: number;
  readonly body: T;
}

export interface CallOptions {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Calls an operation of the main file; path parameters fill its template, `query` its query string. */
export async function memoryServiceCall<T = Record<string, unknown>>(
  base: string,
  operationId: string,
  options: CallOptions = {},
): Promise<MemoryServiceReply<T>> {
  return callIn(MAIN, base, operationId, options);
}

/** Calls an operation of the admin file (adminListConversations, adminEvict, ...). */
export async function adminCall<T = Record<string, unknown>>(
  base: string,
  operationId: string,
  options: CallOptions = {},
): Promise<MemoryServiceReply<T>> {
  return callIn(ADMIN, base, operationId, options);
}

async function callIn<T>(
  spec: SpecFile,
  base: string,
  operationId: string,
  options: CallOptions,
): Promise<MemoryServiceReply<T>> {
  const op = spec.operations.get(operationId);
  assert.ok(op, `no operation ${operationId} in the OpenAPI file`);
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(options.params?.[name] ?? ''));
  const qs = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
  const res = await fetch(`${base}${path}${qs}`, {
    method: op.method,
    headers: {
      ...credentialsFor(base),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  const body = (text ? JSON.parse(text) : undefined) as T;
  const validate = validatorFor(spec, operationId, res.status);
  if (validate && !validate(body))
    assert.fail(
      `${operationId} ${res.status}: the body does not match the OpenAPI file: ${ajv.errorsText(validate.errors)}\n${text}`,
    );
  return { status: res.status, body };
}
