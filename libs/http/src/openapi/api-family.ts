import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import type { z } from 'zod';
import { jsonSchemaOf, requestSchemaOf } from './json-schema.js';
import type { ErrorShape } from '../error-shapes/error-shape.js';
import { zodSerializerCompiler, zodValidatorCompiler } from './zod-provider.js';
import { OPTIONAL_BODY } from './optional-body.js';

/** The request parts fastify validates with a route's zod schemas. */
type RequestPart = 'querystring' | 'params' | 'body';

/** What a route's documentation says; fastify validates the request and serializes the answer with the same zod schemas. */
export interface RouteDocs {
  readonly summary: string;
  readonly description?: string;
  readonly querystring?: z.ZodType;
  readonly params?: z.ZodType;
  /**
   * Request headers the route reads beyond credentials (lower-case names). Documented only: the
   * family reads and words them itself (fastify would hand the handler only the declared ones).
   */
  readonly headers?: z.ZodType;
  readonly body?: z.ZodType;
  /** What a request without a body means (e.g. `{}` where every field is optional); without it, no body is a 400. */
  readonly emptyBody?: unknown;
  /**
   * Parts the handler parses itself, for a reason its route says (a dialect's own rules or error
   * body, a GET body merged with the query): they are documented, and fastify leaves them as sent.
   */
  readonly parsedByHandler?: readonly RequestPart[];
  /** Body media types when the body is not JSON only (defaults to application/json). */
  readonly consumes?: readonly string[];
  /**
   * Answers other than errors, by status: a zod schema of the JSON body (the answer is serialized
   * through it), a MediaAnswer when the body is not (only) JSON, or a sentence saying what the
   * answer is when it has no body (a 204). Defaults to a plain 200.
   */
  readonly responses?: Readonly<Record<number, z.ZodType | MediaAnswer | string>>;
  /**
   * A second error body the route answers with in some cases (a client's own dialect, chosen by
   * what it sends), and when: the document then allows either body for its errors.
   */
  readonly alternateError?: { readonly body: z.ZodType; readonly when: string };
}

/**
 * An answer documented by media type. An `application/json` schema serializes the answer, as a bare
 * schema does; any other type is sent as the handler writes it (an event stream, NDJSON, plain
 * text), its schema describing one event's data or one line, and documenting it only.
 */
export interface MediaAnswer {
  readonly description: string;
  readonly content: Readonly<Record<string, z.ZodType>>;
}

type JsonOf<A> = A extends z.ZodType
  ? A
  : A extends { readonly content: { readonly 'application/json': infer J extends z.ZodType } }
    ? J
    : z.ZodUnknown;

type HandlerParsed<D> = D extends { readonly parsedByHandler: readonly (infer P)[] } ? P : never;
type Validated<D extends RouteDocs, P extends RequestPart> =
  P extends HandlerParsed<D> ? undefined : D extends { readonly [K in P]: infer S } ? S : undefined;

/** The schema fastify sees for a route: the parts it validates, the answers it serializes. */
export interface RouteSchema<D extends RouteDocs> {
  readonly summary: string;
  readonly tags: string[];
  readonly querystring: Validated<D, 'querystring'>;
  readonly params: Validated<D, 'params'>;
  readonly body: Validated<D, 'body'>;
  /** (a status described by a sentence has no schema: fastify sends its body as given) */
  readonly response: {
    [S in keyof NonNullable<D['responses']>]: JsonOf<NonNullable<D['responses']>[S]>;
  };
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
   * The route options that declare a route, for the route's options argument:
   * `app.get('/path', family.route({ summary, querystring: Query }), handler)`. fastify validates
   * the request parts with the schemas (a failure reaches the family's error handler, which words
   * it in the family's shape) and serializes each answer through its response schema.
   */
  route<const D extends RouteDocs>(
    docs: D,
  ): {
    schema: RouteSchema<D>;
    validatorCompiler: FastifySchemaCompiler<unknown>;
    serializerCompiler: FastifySerializerCompiler<unknown>;
    config: { swaggerTransform: (route: { url: string }) => { url: string; schema: Record<string, unknown> } };
  };
}

/**
 * An API family: a tag and the error body every route of the family answers with (each family
 * keeps its own error envelope). Routes hand their zod schemas to fastify, which validates with
 * them and serializes with them, and to the document through a per-route swagger transform that
 * runs only when the document is built, never on a request.
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
      const described = {
        summary: docs.summary,
        tags: [tag],
        ...(docs.description ? { description: docs.description } : {}),
      };
      const validated = (part: RequestPart) =>
        docs[part] && !docs.parsedByHandler?.includes(part) ? { [part]: docs[part] } : {};
      const response: Record<number, z.ZodType> = {};
      for (const [status, body] of Object.entries(docs.responses ?? {})) {
        const json = typeof body === 'string' ? undefined : isMedia(body) ? body.content['application/json'] : body;
        if (json) response[Number(status)] = json;
      }
      const schema = {
        ...described,
        ...validated('querystring'),
        ...validated('params'),
        ...validated('body'),
        response,
      } as unknown as RouteSchema<typeof docs>;
      return {
        schema,
        // (the compilers take zod schemas: the route's schema holds nothing else)
        validatorCompiler: zodValidatorCompiler(
          'emptyBody' in docs ? { emptyBody: docs.emptyBody } : {},
        ) as FastifySchemaCompiler<unknown>,
        serializerCompiler: zodSerializerCompiler as FastifySerializerCompiler<unknown>,
        config: {
          swaggerTransform: ({ url }) => ({
            url,
            schema: {
              ...described,
              ...(docs.querystring ? { querystring: requestSchemaOf(docs.querystring, 'querystring') } : {}),
              ...(docs.params ? { params: requestSchemaOf(docs.params, 'params') } : {}),
              ...(docs.headers ? { headers: requestSchemaOf(docs.headers, 'headers') } : {}),
              ...(docs.body
                ? {
                    body: {
                      ...(requestSchemaOf(docs.body, 'body') as object),
                      ...('emptyBody' in docs ? { [OPTIONAL_BODY]: true } : {}),
                    },
                  }
                : {}),
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

function responsesOf(responses: Readonly<Record<number, z.ZodType | MediaAnswer | string>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, body] of Object.entries(responses)) {
    // `type: 'null'` is @fastify/swagger's way to say "no schema": the sentence describes the answer.
    out[status] =
      typeof body === 'string'
        ? { description: body, type: 'null' }
        : isMedia(body)
          ? { description: body.description, content: mediaOf(body) }
          : { description: describe(body), ...jsonSchemaOf(body, 'output') };
  }
  return out;
}

function isMedia(body: z.ZodType | MediaAnswer): body is MediaAnswer {
  return 'content' in body && typeof body.description === 'string' && !('safeParse' in body);
}

function mediaOf(answer: MediaAnswer): Record<string, { schema: Record<string, unknown> }> {
  return Object.fromEntries(
    Object.entries(answer.content).map(([type, schema]) => [type, { schema: jsonSchemaOf(schema, 'output') }]),
  );
}

function describe(schema: z.ZodType): string {
  return schema.description ?? 'OK';
}
