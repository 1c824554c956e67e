import { AppError } from '@memstream/errors';
import { isPrototypeKey, PROTOTYPE_KEYS_REFUSED } from './prototype-keys.js';
import { MAX_JSON_DEPTH, storable, UNSTORABLE_TEXT } from './storable-json.js';

type Path = Array<string | number>;

/** What in a parsed JSON value would not be kept as it was sent. */
export interface JsonProblem {
  readonly path: Path;
  /**
   * depth: nested past MAX_JSON_DEPTH; text: NUL or an unpaired surrogate (PostgreSQL refuses
   * them); prototype: `__proto__` or `constructor.prototype` (dropped or obeyed when copied by
   * assignment, as zod's records copy); number: a literal past a double's range (±1.8e308), which
   * JSON.parse reads as ±Infinity and JSON.stringify, so every write, turns into null.
   */
  readonly kind: 'depth' | 'text' | 'prototype' | 'number';
}

/**
 * The first problem in `value`, as JSON.parse returned it, or undefined. One walk, iterative, so
 * a body nested ten thousand levels deep is walked without exhausting the stack.
 */
export function jsonProblem(value: unknown): JsonProblem | undefined {
  const stack: Array<{ value: unknown; path: Path }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (!storable(v)) return { path, kind: 'text' };
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { path, kind: 'number' };
    } else if (v !== null && typeof v === 'object') {
      if (path.length >= MAX_JSON_DEPTH) return { path, kind: 'depth' };
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        const at = [...path, Array.isArray(v) ? Number(key) : key];
        if (!storable(key)) return { path: at, kind: 'text' };
        if (isPrototypeKey(key, item))
          return { path: key === '__proto__' ? at : [...at, 'prototype'], kind: 'prototype' };
        stack.push({ value: item, path: at });
      }
    }
  }
  return undefined;
}

const REASONS: Record<Exclude<JsonProblem['kind'], 'depth'>, string> = {
  text: UNSTORABLE_TEXT,
  prototype: PROTOTYPE_KEYS_REFUSED,
  number: 'the number is past the range a JSON number is read in (±1.7976931348623157e308)',
};

/**
 * The 400 for the first problem in a JSON value a client sent (see jsonProblem), naming the field.
 * `what` names the value itself ("the body"); `at`, when given, begins the message ("line 3").
 * Every JSON value a request carries is checked here before anything is written, so nothing is
 * stored other than as it was sent.
 */
export function jsonValueError(
  value: unknown,
  { what = 'the body', at }: { what?: string; at?: string } = {},
): AppError | undefined {
  const problem = jsonProblem(value);
  if (!problem) return undefined;
  const start = `Data format error: ${at ? `${at}: ` : ''}`;
  if (problem.kind === 'depth')
    return new AppError('INVALID_PARAMETER', `${start}${what} nests deeper than ${MAX_JSON_DEPTH} levels`);
  const field = problem.path.join('.') || what;
  return new AppError('INVALID_PARAMETER', `${start}invalid field ${field}: ${REASONS[problem.kind]}`, {
    details: { field },
  });
}
