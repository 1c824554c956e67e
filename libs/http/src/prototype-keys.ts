import { AppError } from '@memstream/errors';

/**
 * fastify's JSON parser refuses `__proto__` keys, and `constructor` keys holding a `prototype`,
 * because in JavaScript they change an object's prototype when copied by assignment (zod's
 * records, `Object.assign`, most clients' merges) instead of being kept as data. We keep the
 * refusal (storing them would hand every JavaScript reader an object that changes shape when
 * copied) but name the key, as a 400 in the family's shape instead of "not valid JSON".
 *
 * Called only after the parser refused the text: undefined when the reason was something else.
 */
export function prototypeKeyError(text: string): AppError | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text); // own properties only: JSON.parse never sets a prototype
  } catch {
    return undefined;
  }
  const path = prototypeKeyPath(value);
  return path ? prototypeKeyErrorAt(path) : undefined;
}

/** Why a prototype key is refused. */
export const PROTOTYPE_KEYS_REFUSED = 'the keys __proto__ and constructor.prototype are not accepted';

/** The 400 for a prototype key at `path`, naming it. */
export function prototypeKeyErrorAt(path: ReadonlyArray<string | number>): AppError {
  const field = path.join('.');
  return new AppError('INVALID_PARAMETER', `Data format error: invalid field ${field}: ${PROTOTYPE_KEYS_REFUSED}`, {
    details: { field },
  });
}

/** Whether `key`, holding `item`, is one JavaScript reads as a prototype when copied by assignment. */
export function isPrototypeKey(key: string, item: unknown): boolean {
  return (
    key === '__proto__' ||
    (key === 'constructor' && item !== null && typeof item === 'object' && Object.hasOwn(item, 'prototype'))
  );
}

function prototypeKeyPath(value: unknown): Array<string | number> | undefined {
  const stack: Array<{ value: unknown; path: Array<string | number> }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    for (const [key, item] of Object.entries(v)) {
      const at = [...path, Array.isArray(v) ? Number(key) : key];
      if (isPrototypeKey(key, item)) return key === '__proto__' ? at : [...at, 'prototype'];
      stack.push({ value: item, path: at });
    }
  }
  return undefined;
}
