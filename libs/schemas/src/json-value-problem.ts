/**
 * Whether a value JSON.parse returned is kept exactly as it was written, wherever it comes from:
 * an HTTP body (a 400) or a record on a public input topic (dead-lettered). Pure, no zod, so both
 * the HTTP and the bus libraries hold values to one rule.
 */

/**
 * Nesting PostgreSQL's jsonb refuses past its stack limit (a few thousand levels), and that no
 * memory needs: deeper bodies are refused at the door. 100 levels leave room for any real payload.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Nesting a record on a public input topic may reach. A body the HTTP API takes becomes a record a
 * few levels deeper (the envelope, its `data`, a message list), so twice the body's limit refuses
 * nothing the API writes. Without a bound, a direct producer's deeper record failed wherever a
 * stack ran out first (JSON.stringify gives out at some thousands of levels, fewer the deeper the
 * call; PostgreSQL's jsonb parser at its own limit) and was dead-lettered as a handler error
 * saying "Maximum call stack size exceeded"; now it is refused before any work, with the reason.
 */
export const MAX_RECORD_DEPTH = 2 * MAX_JSON_DEPTH;

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether PostgreSQL's text and jsonb can hold `s`: no NUL, no unpaired surrogate. */
export function storable(s: string): boolean {
  return !s.includes('\u0000') && !UNPAIRED_SURROGATE.test(s);
}

/** Why text storable refuses is refused. */
export const UNSTORABLE_TEXT = 'NUL (\\u0000) and unpaired surrogates (\\uD800-\\uDFFF) cannot be stored';

/** Why a prototype key is refused. */
export const PROTOTYPE_KEYS_REFUSED = 'the keys __proto__ and constructor.prototype are not accepted';

/**
 * Whether `key`, holding `item`, is one JavaScript reads as a prototype when copied by assignment
 * (zod's records, `Object.assign`, most clients' merges) instead of keeping it as data.
 */
export function isPrototypeKey(key: string, item: unknown): boolean {
  return (
    key === '__proto__' ||
    (key === 'constructor' && item !== null && typeof item === 'object' && Object.hasOwn(item, 'prototype'))
  );
}

type Path = Array<string | number>;

/** What in a parsed JSON value would not be kept as it was sent. */
export interface JsonProblem {
  readonly path: Path;
  /**
   * depth: nested past the depth limit; text: NUL or an unpaired surrogate (PostgreSQL refuses
   * them); prototype: `__proto__` or `constructor.prototype` (dropped or obeyed when copied by
   * assignment, as zod's records copy); number: a literal past a double's range (±1.8e308), which
   * JSON.parse reads as ±Infinity and JSON.stringify, so every write, turns into null.
   */
  readonly kind: 'depth' | 'text' | 'prototype' | 'number';
}

export interface JsonProblemOptions {
  /** Objects and arrays nested this deep are a problem; Infinity leaves depth alone. */
  readonly maxDepth?: number;
}

/**
 * The first problem in `value`, as JSON.parse returned it (in document order), or undefined.
 * Iterative, so a value nested ten thousand levels deep is walked without exhausting the stack.
 *
 * It runs on every HTTP body and every record consumed from a public topic, and nearly all are
 * clean: a first walk keeps no paths (values and their depths only), and only a value it finds a
 * problem in is walked again to name the first one.
 */
export function jsonProblem(
  value: unknown,
  { maxDepth = MAX_JSON_DEPTH }: JsonProblemOptions = {},
): JsonProblem | undefined {
  return hasProblem(value, maxDepth) ? firstProblem(value, maxDepth) : undefined;
}

function hasProblem(root: unknown, maxDepth: number): boolean {
  const values: unknown[] = [root];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (typeof v === 'string') {
      if (!storable(v)) return true;
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return true;
    } else if (v !== null && typeof v === 'object') {
      if (depth >= maxDepth) return true;
      if (Array.isArray(v)) {
        for (const item of v) {
          values.push(item);
          depths.push(depth + 1);
        }
      } else {
        const object = v as Record<string, unknown>;
        for (const key of Object.keys(object)) {
          const item = object[key];
          if (!storable(key) || isPrototypeKey(key, item)) return true;
          values.push(item);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/** The walk that names the problem: depth first, in document order, each node with its path. */
function firstProblem(value: unknown, maxDepth: number): JsonProblem | undefined {
  const stack: Array<{ value: unknown; path: Path }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (!storable(v)) return { path, kind: 'text' };
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { path, kind: 'number' };
    } else if (v !== null && typeof v === 'object') {
      if (path.length >= maxDepth) return { path, kind: 'depth' };
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
 * A problem said in words: "invalid field a.b: <why>", or, for depth, "<what> nests deeper than N
 * levels". `what` names the whole value (the body, the line, the record), used when the path is empty.
 */
export function describeJsonProblem(
  problem: JsonProblem,
  { what, maxDepth = MAX_JSON_DEPTH }: { what: string; maxDepth?: number },
): { message: string; field?: string } {
  if (problem.kind === 'depth') return { message: `${what} nests deeper than ${maxDepth} levels` };
  const field = problem.path.join('.') || what;
  return { message: `invalid field ${field}: ${REASONS[problem.kind]}`, field };
}
