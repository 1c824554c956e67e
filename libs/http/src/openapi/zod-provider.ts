import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifySchemaCompiler,
  FastifySerializerCompiler,
  FastifyTypeProvider,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { z } from 'zod';
import { AppError } from '@memstream/errors';
import { parseOrThrow } from '../validation.js';

/**
 * fastify's type provider for zod: a route's handler sees its request parts as the parsed output
 * of the schemas it declares, and may send what its response schemas take in.
 */
export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown;
  serializer: this['schema'] extends z.ZodType ? z.input<this['schema']> : unknown;
}

/** A server (or a family's scope of one) whose routes are typed by their zod schemas. */
export type ZodApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/** How each request part is named in a 400 ("missing required field ... of query"). */
const PART_NAMES: Record<string, string> = { body: 'request body', querystring: 'query', params: 'path' };

/**
 * Validates a request part with its zod schema and hands the handler the parsed value. A failure
 * is the same INVALID_PARAMETER error parseOrThrow raises (the field named, NUL and unpaired
 * surrogates refused), which fastify passes untouched to the family's error handler, so each
 * family words it in its own shape. fastify-type-provider-zod's compiler was not taken: its errors
 * name no field the way our families answer, and it would not refuse what PostgreSQL cannot store.
 */
export function zodValidatorCompiler(options: { readonly emptyBody?: unknown }): FastifySchemaCompiler<z.ZodType> {
  return ({ schema, httpPart }) => {
    const what = PART_NAMES[httpPart ?? ''] ?? httpPart ?? 'request';
    return (data) => {
      try {
        // fastify hands a missing body as null; routes whose body may be left out say what it means
        const given = httpPart === 'body' && data == null && 'emptyBody' in options ? options.emptyBody : data;
        return { value: parseOrThrow(schema, given, what) };
      } catch (error) {
        return { error: error as Error };
      }
    };
  };
}

/**
 * Serializes an answer through its response schema: what the document does not declare is not
 * sent (a field added to a row does not leak), and an answer the schema refuses is a server error,
 * logged, instead of a body the document does not describe.
 */
export const zodSerializerCompiler: FastifySerializerCompiler<z.ZodType> = ({ schema, method, url, httpStatus }) => {
  return (data) => {
    const result = schema.safeParse(data);
    if (result.success) return JSON.stringify(result.data);
    const issue = result.error.issues[0];
    throw new AppError(
      'SYSTEM_ERROR',
      `answer of ${method} ${url} (${httpStatus}) does not match its schema at ${issue?.path.join('.') || 'the root'}: ${issue?.message}`,
    );
  };
};
