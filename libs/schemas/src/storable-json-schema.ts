/**
 * The rules of jsonProblem (json-value-problem.ts) said in JSON Schema, so that what we publish
 * for a request part (the OpenAPI documents) and for a record on a public input topic (schemas/)
 * refuses what the server refuses. The JSON body parser and a public topic's decoder refuse NUL
 * anywhere, `__proto__` keys and numbers past a double's range; parseOrThrow refuses NUL in every
 * parsed query and path value. A document that left this out would promise values that are then
 * refused.
 *
 * Not said: unpaired surrogates, refused too (the id pattern says it, see ids.ts, but written for
 * every text it makes Schemathesis's coverage phase some twenty times slower, and no reader but
 * JavaScript can even hold one in a string); the body's depth limit (MAX_JSON_DEPTH levels, which
 * JSON Schema cannot count through a recursive reference); a `constructor` key holding a
 * `prototype`.
 */

/** Text without NUL. */
export const STORABLE_TEXT = '^[^\\u0000]*$';

/**
 * The largest double. A literal past it (1e400) is read as Infinity by JSON.parse and by most
 * validators' parsers, so these bounds refuse it where it would be refused.
 */
const LARGEST_NUMBER = Number.MAX_VALUE;

/** Where an OpenAPI document keeps the schema of any storable JSON value (it refers to itself). */
export const STORABLE_JSON_REF = '#/components/schemas/StorableJson';

const STORABLE_KEY = { pattern: STORABLE_TEXT, not: { enum: ['__proto__'] } };

/** Any JSON value whose strings and keys are storable and whose numbers are finite, at any depth; `ref` is where it is kept. */
export function storableJsonSchema(ref: string): Record<string, unknown> {
  return {
    description:
      'Any JSON value whose text (strings and keys, at any depth) holds no NUL, without a __proto__ key or a number past the range of a double',
    type: ['null', 'boolean', 'number', 'string', 'array', 'object'],
    pattern: STORABLE_TEXT,
    minimum: -LARGEST_NUMBER,
    maximum: LARGEST_NUMBER,
    items: { $ref: ref },
    propertyNames: STORABLE_KEY,
    additionalProperties: { $ref: ref },
  };
}

/** Any storable JSON value, kept in an OpenAPI document's components. */
export const STORABLE_JSON: Record<string, unknown> = storableJsonSchema(STORABLE_JSON_REF);

type Schema = Record<string, unknown>;

const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;

/**
 * Adds the storable rule to a JSON Schema, in place. In a whole value checked as it arrives
 * (`deep`: a body, a topic's record), values the schema leaves open (unknown properties, `{}`)
 * become any storable JSON (kept at `ref`), every open object's keys are storable and every number
 * is finite; in a query or path, only the declared text is held to it, as only parsed values are
 * checked there.
 */
export function withStorableText(schema: Schema, deep: boolean, ref: string = STORABLE_JSON_REF): Schema {
  const visit = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
    const s = node as Schema;
    if (deep && Object.keys(s).length === 0) return { $ref: ref };
    const types = Array.isArray(s['type']) ? (s['type'] as unknown[]) : [s['type']];
    if (
      types.includes('string') &&
      s['pattern'] === undefined &&
      s['format'] === undefined &&
      s['enum'] === undefined &&
      s['const'] === undefined
    )
      s['pattern'] = STORABLE_TEXT;
    if (deep && (types.includes('number') || types.includes('integer'))) {
      if (s['minimum'] === undefined && s['exclusiveMinimum'] === undefined) s['minimum'] = -LARGEST_NUMBER;
      if (s['maximum'] === undefined && s['exclusiveMaximum'] === undefined) s['maximum'] = LARGEST_NUMBER;
    }
    if (deep && (types.includes('object') || s['properties'] !== undefined) && s['additionalProperties'] !== false) {
      s['additionalProperties'] =
        s['additionalProperties'] === undefined ? { $ref: ref } : visit(s['additionalProperties']);
      const names = (s['propertyNames'] ?? {}) as Schema;
      s['propertyNames'] = { ...names, ...(names['pattern'] === undefined ? STORABLE_KEY : { not: STORABLE_KEY.not }) };
    }
    const properties = s['properties'] as Schema | undefined;
    if (properties) for (const key of Object.keys(properties)) properties[key] = visit(properties[key]);
    if (s['items'] !== undefined) s['items'] = visit(s['items']);
    for (const list of SUBSCHEMA_LISTS) {
      const entries = s[list];
      if (Array.isArray(entries)) s[list] = entries.map(visit);
    }
    return s;
  };
  return visit(schema) as Schema;
}
