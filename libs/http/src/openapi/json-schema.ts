import { z } from 'zod';

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
