import type { RouteShorthandOptions } from 'fastify';
import type { z } from 'zod';
import { jsonSchemaOf } from './json-schema.js';
import type { ErrorShape } from '../error-shapes/error-shape.js';

/** What a route's documentation says; the zod schemas are the ones the handler parses with. */
export interface RouteDocs {
  readonly summary: string;
  readonly description?: string;
  readonly querystring?: z.ZodType;
  readonly params?: z.ZodType;
  /** Request headers the route reads beyond credentials (lower-case names). */
  readonly headers?: z.ZodType;
  readonly body?: z.ZodType;
  /** Body media types when the body is not JSON only (defaults to application/json). */
  readonly consumes?: readonly string[];
  /**
   * Answers other than errors, by status: a zod schema of the JSON body, or a sentence saying
   * what the answer is when its body has no schema of its own. Defaults to a plain 200.
   */
  readonly responses?: Readonly<Record<number, z.ZodType | string>>;
  /**
   * A second error body the route answers with in some cases (a client's own dialect, chosen by
   * what it sends), and when: the document then allows either body for its errors.
   */
  readonly alternateError?: { readonly body: z.ZodType; readonly when: string };
}

export interface ApiFamily {
  /** The OpenAPI tag every route of the family carries. */
  readonly tag: string;
  readonly description: string;
  /** The path prefixes the family owns: an error on a path no route matches still comes in its shape. */
  readonly paths: readonly string[];
  /** The body its errors come in (the routes set it as their error handler; see shapeByPath). */
  readonly errorShape: ErrorShape;
  /**
   * The route options that document a route, for the route's options argument:
   * `app.get('/path', family.route({ summary, querystring: Query }), handler)`.
   * Only the documentation sees the schemas: fastify validates nothing, so the handler's own
   * parsing still answers bad input in the family's error shape.
   */
  route(docs: RouteDocs): RouteShorthandOptions;
}

/**
 * An API family: a tag and the error body every route of the family answers with (each family
 * keeps its own error envelope). Routes hand their zod schemas over through a per-route swagger
 * transform that runs only when the document is built, never on a request.
 */
export function apiFamily(
  tag: string,
  description: string,
  errors: { body: z.ZodType; shape: ErrorShape; paths: readonly string[] },
): ApiFamily {
  const error = jsonSchemaOf(errors.body, 'output');
  return {
    tag,
    description,
    paths: errors.paths,
    errorShape: errors.shape,
    route(docs) {
      const errorBody = docs.alternateError
        ? { anyOf: [error, jsonSchemaOf(docs.alternateError.body, 'output')] }
        : error;
      const alternate = docs.alternateError ? `; ${docs.alternateError.when}` : '';
      const schema = {
        summary: docs.summary,
        tags: [tag],
        ...(docs.description ? { description: docs.description } : {}),
      };
      return {
        schema,
        config: {
          swaggerTransform: ({ url }) => ({
            url,
            schema: {
              ...schema,
              ...(docs.querystring ? { querystring: jsonSchemaOf(docs.querystring, 'input') } : {}),
              ...(docs.params ? { params: jsonSchemaOf(docs.params, 'input') } : {}),
              ...(docs.headers ? { headers: jsonSchemaOf(docs.headers, 'input') } : {}),
              ...(docs.body ? { body: jsonSchemaOf(docs.body, 'input') } : {}),
              ...(docs.consumes ? { consumes: docs.consumes } : {}),
              response: {
                ...responsesOf(docs.responses ?? { 200: 'OK' }),
                '4XX': { description: `Client error in the ${tag} error shape${alternate}`, ...errorBody },
                '5XX': {
                  description: `Server error in the ${tag} error shape (no internals; 503 carries Retry-After)${alternate}`,
                  ...errorBody,
                },
              },
            },
          }),
        },
      };
    },
  };
}

function responsesOf(responses: Readonly<Record<number, z.ZodType | string>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, body] of Object.entries(responses)) {
    // `type: 'null'` is @fastify/swagger's way to say "no schema": the sentence describes the body.
    out[status] =
      typeof body === 'string'
        ? { description: body, type: 'null' }
        : { description: describe(body), ...jsonSchemaOf(body, 'output') };
  }
  return out;
}

function describe(schema: z.ZodType): string {
  return schema.description ?? 'OK';
}
