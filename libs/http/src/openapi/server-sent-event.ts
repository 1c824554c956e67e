import { z } from 'zod';
import { jsonSchemaOf } from './json-schema.js';

/**
 * One event of a `text/event-stream` answer, as the document describes it: an object of the
 * event's fields, the way OpenAPI 3.2 reads a stream item by item and Schemathesis checks each
 * event. `data` is a line of JSON (its schema given as the content schema), or one of the markers
 * sent bare (`[DONE]`). Comment lines (heartbeats) are not events.
 */
export function serverSentEvent(options: {
  /** The `event:` names; left out: a stream some of whose events carry none. */
  readonly names?: readonly [string, ...string[]];
  readonly data: z.ZodType;
  readonly markers?: readonly [string, ...string[]];
}): z.ZodType {
  const json = z.string().meta({
    contentMediaType: 'application/json',
    contentSchema: jsonSchemaOf(options.data, 'output'),
  });
  return z.object({
    ...(options.names ? { event: z.enum(options.names).optional() } : {}),
    data: options.markers ? z.union([z.enum(options.markers), json]) : json,
  });
}
