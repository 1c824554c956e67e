import { z } from 'zod';

/**
 * One of `values` in any letter case, answered in lower case: the memory-service takes
 * `"channel": "MEMORY"` as `memory`. The pattern spells each letter both ways, so the published
 * schema says exactly what is accepted.
 */
export function caseInsensitiveEnum<const T extends readonly [string, ...string[]]>(values: T, name: string) {
  const either = (word: string) =>
    [...word].map((c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`)).join('');
  const pattern = new RegExp(`^(?:${values.map(either).join('|')})$`);
  return z
    .string()
    .regex(pattern, { message: `${name} must be one of ${values.join(', ')} (any case)` })
    .transform((s) => s.toLowerCase() as T[number]);
}
