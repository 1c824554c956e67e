/**
 * What every request part is held to beyond its own schema, said in the document too: text
 * PostgreSQL can store. The JSON body parser refuses NUL anywhere in a body (unknown keys and
 * their values included, see create-http-server.ts) and `__proto__` keys, and parseOrThrow
 * refuses NUL in every parsed query and path value. A document that left this out would promise
 * requests the server refuses.
 *
 * Not said: unpaired surrogates, refused too (the id pattern says it, see ids.ts, but written for
 * every text it makes Schemathesis's coverage phase some twenty times slower, and no reader but
 * JavaScript can even hold one in a string); the body's depth limit (MAX_JSON_DEPTH levels, which
 * JSON Schema cannot count through a recursive reference); a `constructor` key holding a
 * `prototype`.
 */

/** Text without NUL. */
export const STORABLE_TEXT = '^[^\\u0000]*$';

/** Where the document keeps the schema of any storable JSON value (it refers to itself). */
export const STORABLE_JSON_REF = '#/components/schemas/StorableJson';

const STORABLE_KEY = { pattern: STORABLE_TEXT, not: { enum: ['__proto__'] } };

/** Any JSON value whose strings and keys are storable, at any depth. */
export const STORABLE_JSON: Record<string, unknown> = {
  description: 'Any JSON value whose text (strings and keys, at any depth) holds no NUL',
  type: ['null', 'boolean', 'number', 'string', 'array', 'object'],
  pattern: STORABLE_TEXT,
  items: { $ref: STORABLE_JSON_REF },
  propertyNames: STORABLE_KEY,
  additionalProperties: { $ref: STORABLE_JSON_REF },
};

type Schema = Record<string, unknown>;

const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;

/**
 * Adds the storable rule to a request part's JSON Schema, in place. In a body (`deep`), values the
 * schema leaves open (unknown properties, `{}`) become any storable JSON and every open object's
 * keys are storable; in a query or path, only the declared text is held to it, as only parsed
 * values are checked there.
 */
export function withStorableText(schema: Schema, deep: boolean): Schema {
  const visit = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
    const s = node as Schema;
    if (deep && Object.keys(s).length === 0) return { $ref: STORABLE_JSON_REF };
    const types = Array.isArray(s['type']) ? (s['type'] as unknown[]) : [s['type']];
    if (
      types.includes('string') &&
      s['pattern'] === undefined &&
      s['format'] === undefined &&
      s['enum'] === undefined &&
      s['const'] === undefined
    )
      s['pattern'] = STORABLE_TEXT;
    if (deep && (types.includes('object') || s['properties'] !== undefined) && s['additionalProperties'] !== false) {
      s['additionalProperties'] =
        s['additionalProperties'] === undefined ? { $ref: STORABLE_JSON_REF } : visit(s['additionalProperties']);
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
