import { AppError } from '@memstream/errors';
import { storable, UNSTORABLE_TEXT } from '@memstream/schemas';

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

/** The 400 for a value unstorablePath found, naming the field. */
export function unstorableError(path: ReadonlyArray<string | number>, what = 'request body'): AppError {
  const field = path.join('.') || what;
  return new AppError('INVALID_PARAMETER', `Data format error: invalid field ${field}: ${UNSTORABLE_TEXT}`, {
    details: { field },
  });
}
