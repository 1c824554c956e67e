import type { z } from 'zod';
import { AppError } from '@memstream/errors';

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
    const nul = nulPath(result.data, []);
    // PostgreSQL's text and jsonb cannot hold NUL: refused here, named, instead of failing the write.
    if (nul) throw new AppError('INVALID_PARAMETER', `Data format error: invalid field ${nul.join('.') || what}: NUL (\\u0000) characters are not accepted`, { details: { field: nul.join('.') } });
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

/** The path of the first string (or object key) holding a NUL character, or undefined. */
function nulPath(value: unknown, path: PropertyKey[], depth = 0): PropertyKey[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object' || depth > 200) return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return [...path, key];
    const found = nulPath(item, [...path, Array.isArray(value) ? Number(key) : key], depth + 1);
    if (found) return found;
  }
  return undefined;
}
