import { AppError } from '@memstream/errors';

/**
 * The path of the first string (or object key) PostgreSQL cannot store: one holding NUL (text and
 * jsonb refuse it) or an unpaired UTF-16 surrogate (valid in a JSON escape, but not a character:
 * jsonb refuses it too). Undefined when everything can be stored. Iterative, so a body nested ten
 * thousand levels deep is walked without exhausting the stack.
 */
export function unstorablePath(value: unknown): Array<string | number> | undefined {
  const stack: Array<{ value: unknown; path: Array<string | number> }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (!storable(v)) return path;
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        const at = [...path, Array.isArray(v) ? Number(key) : key];
        if (!storable(key)) return at;
        stack.push({ value: item, path: at });
      }
    }
  }
  return undefined;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether PostgreSQL's text and jsonb can hold `s`. */
export function storable(s: string): boolean {
  return !s.includes('\u0000') && !UNPAIRED_SURROGATE.test(s);
}

/** Why a value unstorablePath found is refused. */
export const UNSTORABLE_TEXT = 'NUL (\\u0000) and unpaired surrogates (\\uD800-\\uDFFF) cannot be stored';

/** The 400 for a value unstorablePath found, naming the field. */
export function unstorableError(path: ReadonlyArray<string | number>, what = 'request body'): AppError {
  const field = path.join('.') || what;
  return new AppError('INVALID_PARAMETER', `Data format error: invalid field ${field}: ${UNSTORABLE_TEXT}`, {
    details: { field },
  });
}

/**
 * Nesting PostgreSQL's jsonb refuses past its stack limit (a few thousand levels), and that no
 * memory needs: deeper bodies are refused at the door. 100 levels leave room for any real payload.
 */
export const MAX_JSON_DEPTH = 100;

/** The path at which `value` nests deeper than `maxDepth` levels, or undefined. */
export function tooDeepPath(value: unknown, maxDepth = MAX_JSON_DEPTH): Array<string | number> | undefined {
  const stack: Array<{ value: unknown; path: Array<string | number> }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= maxDepth) return path;
    for (const [key, item] of Object.entries(v))
      stack.push({ value: item, path: [...path, Array.isArray(v) ? Number(key) : key] });
  }
  return undefined;
}
