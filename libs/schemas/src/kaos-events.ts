import { z } from 'zod';
import { envelopeOf } from './envelope.js';
import { KEY_PART_MAX_CHARS, SafeId, keyPart } from './ids.js';

/**
 * KAOS agent memory's writes, as events on the conversation input topic. A KAOS session lives in
 * an agent's namespace (KAOS keeps one memory per agent pod), so it is named by the pair
 * (agent, session_id). Every event of one session is keyed by `group_id` = `kaos:<agent>:<session>`
 * and so applied in order; a cleanup, which spans sessions, is keyed by `kaos:<agent>`.
 */
const Id = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000]+$/);

/** The ordering key of a session's events: each part encoded (see keyPart), so no two (agent, session) pairs share one. */
export function kaosSessionKey(agent: string, sessionId: string): string {
  return `kaos:${keyPart(agent)}:${keyPart(sessionId)}`;
}

/** The ordering key of an agent-wide write (a cleanup). */
export function kaosAgentKey(agent: string): string {
  return `kaos:${keyPart(agent)}`;
}

/** A key's limit follows from its parts': two ids of at most 255 characters, each fully encoded. */
const KaosKey = z
  .string()
  .min(1)
  .max('kaos:'.length + 2 * KEY_PART_MAX_CHARS + 1);

/** A session's events may not name one event twice: which of the two would be the event? */
function uniqueEventIds(events: ReadonlyArray<{ event_id?: string | undefined }>, ctx: z.RefinementCtx): void {
  const first = new Map<string, number>();
  events.forEach((e, i) => {
    if (e.event_id === undefined) return;
    const earlier = first.get(e.event_id);
    if (earlier === undefined) first.set(e.event_id, i);
    else
      ctx.addIssue({
        code: 'custom',
        path: [i, 'event_id'],
        message: `${e.event_id} is given twice in one list (also at ${earlier}): event ids are unique within a session`,
      });
  });
}

/** A list of events: at most 1000, no event id twice. */
export function eventList<T extends z.ZodType<{ event_id?: string | undefined }>>(event: T) {
  return z
    .array(event)
    .min(1)
    .max(1000)
    .superRefine(uniqueEventIds)
    .meta({ description: '1 to 1000 events; an event_id may appear once' });
}

export const KAOS_EVENT_TYPES = [
  'user_message',
  'agent_response',
  'tool_call',
  'tool_result',
  'delegation_request',
  'delegation_response',
  'error',
] as const;
/**
 * KAOS's event_type is a free string: the seven above are the ones its document lists, and its own
 * agent writes more (`task_delegation_received`, `delegation_error`). Stored as given.
 */
export const KaosEventType = z
  .string()
  .max(255)
  .regex(/^[^\u0000]*$/, 'must not contain NUL')
  .meta({
    description: `Any string up to 255 characters; KAOS's agent writes ${KAOS_EVENT_TYPES.join(', ')}, task_delegation_received, delegation_error`,
  });
export type KaosEventType = z.infer<typeof KaosEventType>;

/**
 * Content of one event as JSON text: what one Kafka record holds by default (1 MiB), so a large
 * tool result is kept. An event must also fit the broker's record limit (KAFKA_MAX_MESSAGE_BYTES)
 * with its envelope; past either the write is refused with 413, naming the limit.
 */
export const KAOS_MAX_CONTENT_BYTES = 1024 * 1024;

/**
 * An event's time with its offset, as PostgreSQL can store it: there is no year 0, and offsets
 * reach ±15:59 (ISO 8601 allows more; the store refuses them).
 */
export const KaosTimestamp = z.iso
  .datetime({ offset: true })
  .regex(/^(?!0000)/, 'there is no year 0000')
  .regex(/(Z|[+-](0\d|1[0-5]):[0-5]\d)$/, 'the UTC offset must be within ±15:59');

/** One event as stored: its id is unique within its session, so a resent event is stored once. */
export const KaosEvent = z.object({
  event_id: Id,
  timestamp: KaosTimestamp,
  event_type: KaosEventType,
  content: z.unknown(),
  metadata: z.record(z.string(), z.unknown()),
  /**
   * content and metadata as the client wrote them (JSON text), kept verbatim so numbers come back
   * as written (8.0, integers past 2^53, -0.0). Given, they are what is stored (content is then left
   * out, so a large result travels once); absent, content and metadata are.
   */
  content_json: z.string().max(KAOS_MAX_CONTENT_BYTES).optional(),
  metadata_json: z.string().optional(),
});
export type KaosEvent = z.infer<typeof KaosEvent>;

/** The limits a KAOS pod is configured with (MEMORY_MAX_SESSIONS, MEMORY_MAX_SESSION_EVENTS), carried by each write. */
const Limits = { max_sessions: z.number().int().min(1), max_session_events: z.number().int().min(1) };

export const KaosSessionCreated = envelopeOf(
  'kaos.session.created',
  z.object({
    group_id: KaosKey,
    agent: SafeId,
    session_id: SafeId,
    app_name: z.string().max(255),
    user_id: z.string().max(255),
    /** true: an existing session is kept and reported; false: it is replaced by an empty one (KAOS's create_session). */
    get_or_create: z.boolean(),
    /** The person who may read the session through every family (null: none, as an agent's own). */
    owner_user_id: Id.nullable(),
    ...Limits,
  }),
);
export type KaosSessionCreated = z.infer<typeof KaosSessionCreated>;

export const KaosEventsAppended = envelopeOf(
  'kaos.events.appended',
  z.object({ group_id: KaosKey, agent: SafeId, session_id: SafeId, events: eventList(KaosEvent), ...Limits }),
);
export type KaosEventsAppended = z.infer<typeof KaosEventsAppended>;

export const KaosSessionDeleted = envelopeOf(
  'kaos.session.deleted',
  z.object({ group_id: KaosKey, agent: SafeId, session_id: SafeId }),
);
export type KaosSessionDeleted = z.infer<typeof KaosSessionDeleted>;

export const KaosSessionsCleaned = envelopeOf(
  'kaos.sessions.cleaned',
  z.object({
    group_id: KaosKey,
    agent: SafeId,
    /** Sessions not updated since this instant are deleted. */
    updated_before: z.iso.datetime({ offset: true }),
    /** Only sessions this person may read (a person's cleanup); null: every session of the agent. */
    visible_to: Id.nullable(),
  }),
);
export type KaosSessionsCleaned = z.infer<typeof KaosSessionsCleaned>;

export const KaosInput = z.discriminatedUnion('type', [
  KaosSessionCreated,
  KaosEventsAppended,
  KaosSessionDeleted,
  KaosSessionsCleaned,
]);
export type KaosInput = z.infer<typeof KaosInput>;

/** True for KAOS's writes on the shared conversation input topic. */
export function isKaosInput<E extends { type: string }>(event: E): event is Extract<E, KaosInput> {
  return event.type.startsWith('kaos.');
}
