import { z } from 'zod';

/**
 * Parses the environment once, against the schema a service declares. Pure: it reads only the
 * object it is given, so tests pass their own and only `main.ts` ever touches `process.env`.
 * Fails fast with every problem listed, one per line, naming the variable.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`);
  throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Building blocks for env schemas: strings in, typed values out. Units live in the variable names. */
export const env = {
  string: (fallback?: string) => (fallback === undefined ? z.string().min(1) : z.string().min(1).default(fallback)),
  optionalString: () =>
    z
      .string()
      .optional()
      .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim())),
  int: (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.coerce.number().int().min(min).max(max).default(fallback),
  /** Text of a given form only some setups need: blank or unset is undefined; anything else must match. */
  optionalMatching: (pattern: RegExp, message: string) =>
    z.preprocess(
      (v) => (typeof v === 'string' ? (v.trim() === '' ? undefined : v.trim()) : v),
      z.string().regex(pattern, message).optional(),
    ),
  /** A number only some setups need: blank or unset is undefined. */
  optionalInt: (min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.preprocess(
      (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
      z.coerce.number().int().min(min).max(max).optional(),
    ),
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  /** Comma-separated list, blanks dropped: `a:9092, b:9092` becomes two brokers. */
  list: () =>
    z
      .string()
      .optional()
      .transform((v) =>
        (v ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s.length > 0),
      ),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};
