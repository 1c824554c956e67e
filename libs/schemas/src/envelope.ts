import { z } from 'zod';

/**
 * Who caused a write, as the API edge authenticated them: a person (a JWT's subject) is held to
 * the conversation's memberships when the event is applied; an agent (API key) is not. Absent on
 * events from direct producers and from a server without authentication: trusted like an agent.
 */
export const Actor = z.object({ kind: z.enum(['user', 'agent']), id: z.string().min(1).max(255) });
export type Actor = z.infer<typeof Actor>;

/** The longest event id a topic takes; ids derived from others must fit (see the converter's storedEvent). */
export const EVENT_ID_MAX_CHARS = 200;

/** The longest correlation id, in the envelope or in the `x-correlation-id` header that may fill it. */
export const CORRELATION_ID_MAX_CHARS = 200;

/**
 * Every event on every topic is one JSON object of this shape. `id` identifies the event (a
 * producer retry sends the same id again); `correlation_id` ties it to the HTTP request that
 * caused it, and the bus also carries it as a Kafka header.
 */
export function envelopeOf<T extends string, D extends z.ZodType>(type: T, data: D) {
  return z.object({
    id: z.string().min(1).max(EVENT_ID_MAX_CHARS),
    type: z.literal(type),
    occurred_at: z.iso.datetime({ offset: true }),
    correlation_id: z.string().max(CORRELATION_ID_MAX_CHARS).optional(),
    source: z.string().max(100).optional(),
    actor: Actor.optional(),
    data,
  });
}
