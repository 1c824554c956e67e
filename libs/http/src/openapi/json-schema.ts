import { z } from 'zod';
import { withStorableText } from '@memstream/schemas';

/**
 * A zod schema as the JSON Schema an OpenAPI 3.1 document embeds. Requests are described as
 * clients write them (`input`: defaults optional, before transforms), responses as the server
 * sends them (`output`). Refinements have no JSON Schema form and are left to the descriptions.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as Record<string, unknown>;
  return rest;
}

/**
 * A request part's JSON Schema as the server holds it: its zod schema, and the storable-text rule
 * every part is checked against besides (deep in a body, which is checked whole as it arrives).
 */
export function requestSchemaOf(
  schema: z.ZodType,
  part: 'querystring' | 'params' | 'headers' | 'body',
): Record<string, unknown> {
  return withStorableText(jsonSchemaOf(schema, 'input'), part === 'body');
}
