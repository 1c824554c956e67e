import type { z } from 'zod';
import { AppError } from '@memstream/errors';
import { unstorableError, unstorablePath } from './storable-json.js';

/**
 * Parses a request part with a zod schema; the first problem becomes an INVALID_PARAMETER error
 * that names the field, the way the EverMemOS API words it ("missing required field message_id").
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what = 'request body'): z.infer<S> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('INVALID_PARAMETER', `Data format error: ${what} must be a JSON object`);
  }
  const result = schema.safeParse(value);
  if (result.success) {
    // PostgreSQL's text and jsonb cannot hold NUL or unpaired surrogates: refused here, named, instead of failing the write.
    const bad = unstorablePath(result.data);
    if (bad) throw unstorableError(bad, what);
    return result.data;
  }
  const issue = result.error.issues[0]!;
  const field = issue.path.join('.') || what;
  const missing = issue.code === 'invalid_type' && readPath(value, issue.path) === undefined;
  const message = missing
    ? `Data format error: missing required field ${field}`
    : `Data format error: invalid field ${field}: ${issue.message}`;
  throw new AppError('INVALID_PARAMETER', message, { details: { field } });
}

function readPath(value: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
