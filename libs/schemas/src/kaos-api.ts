import { z } from 'zod';
import { KAOS_MAX_CONTENT_BYTES, KaosEventType, KaosTimestamp, eventList } from './kaos-events.js';
import { SafeHeaderId, SafeId } from './ids.js';

/**
 * KAOS agent memory's HTTP payloads: KAOS's own two debugging reads (`GET /memory/events`,
 * `GET /memory/sessions`) exactly as its agent server answers them, and one route per
 * operation of its LocalMemory class, so a KAOS agent's memory can live here instead of in its pod.
 */
/** NUL cannot be stored (PostgreSQL text): ids say so in their pattern. */
const Id = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000]+$/);
const Name = z
  .string()
  .max(255)
  .regex(/^[^\u0000]*$/);

/** Session ids and agent names follow the common id rule: they name a conversation in every family. */
export const KaosSessionParams = z.object({ sessionId: SafeId });

/** A positive whole number in a header: LocalMemory's limits as a client constructed it. */
const LimitHeader = z.string().regex(/^[1-9][0-9]{0,8}$/, 'must be a whole number from 1 to 999999999');

/**
 * The agent whose memory a call reaches (without it, the server's KAOS_AGENT_NAME), and the limits
 * its memory was built with (LocalMemory's max_sessions, max_events_per_session). The limits are
 * the server's (MEMORY_MAX_SESSIONS, MEMORY_MAX_SESSION_EVENTS); an agent's key (or the local user
 * of a server without authentication) may send lower ones, and a person's token none (403).
 */
export const KaosHeaders = z.object({
  'x-kaos-agent': SafeHeaderId.optional(),
  'x-kaos-max-sessions': LimitHeader.optional().meta({
    description:
      "LocalMemory's max_sessions, from an agent's key only (a person's token: 403). At most the server's MEMORY_MAX_SESSIONS, which applies without it and to anything above it",
  }),
  'x-kaos-max-session-events': LimitHeader.optional().meta({
    description:
      "LocalMemory's max_events_per_session, from an agent's key only (a person's token: 403). At most the server's MEMORY_MAX_SESSION_EVENTS, which applies without it and to anything above it",
  }),
});

/** The headers of a call that builds nothing: only the agent (the limits count where sessions and events are added). */
export const KaosAgentHeaders = KaosHeaders.pick({ 'x-kaos-agent': true });

// JavaScript's \s and ASCII digits, written out: the document's other readers take \s and \d wider
const PY_SPACE = '[\\t\\n\\v\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]';
/**
 * An integer as FastAPI (pydantic) reads one from a query string: spaces around it, a sign, `_`
 * between digits, a `.0` tail. Anything else is FastAPI's 422.
 */
export const PYTHON_INT_PATTERN = new RegExp(`^${PY_SPACE}*[+-]?[0-9]+(_[0-9]+)*(\\.0+)?${PY_SPACE}*$`);

/**
 * KAOS's GET /memory/events, read as its agent server reads it: `limit` defaults to 100 and is
 * capped at 1000; its slice `events[-limit:]` makes 0 every event and -n every event but the first
 * n; a repeated limit counts its last value; an empty session_id means every session.
 */
export const KaosEventsQuery = z.object({
  limit: z.string().regex(PYTHON_INT_PATTERN).optional().meta({
    description:
      "An integer (default 100, at most 1000 answered): the latest events; 0 every event, -n every event but the first n. Repeated, the last counts. Not an integer: 422 with FastAPI's list-shaped detail",
  }),
  session_id: Name.optional().meta({ description: "One session's events; empty or absent: every session's" }),
});

export const KaosListSessionsQuery = z.object({ user_id: Name.optional() });

export const KaosCreateSessionRequest = z.object({
  app_name: Name.default('agent'),
  user_id: Name.optional(),
  session_id: SafeId.nullable().optional(),
  get_or_create: z.boolean().default(false),
});

/** An event as a client sends it: KAOS's clients make the id and time themselves, and may send both. */
export const KaosNewEvent = z.object({
  event_type: KaosEventType,
  // The size is checked on the JSON text as sent (413 past it), which is also what is stored.
  content: z.unknown().meta({
    description: `Any JSON value, kept as written (numbers keep their digits); at most ${KAOS_MAX_CONTENT_BYTES} bytes of JSON (413 past it)`,
  }),
  metadata: z.record(z.string(), z.unknown()).default({}),
  event_id: Id.optional(),
  timestamp: KaosTimestamp.optional(),
});
export type KaosNewEvent = z.infer<typeof KaosNewEvent>;

/** A list of events as a client sends it. */
export const KaosNewEventList = eventList(KaosNewEvent);

/** One event, or a list of them (1 to 1000). */
export const KaosAddEventsRequest = z.union([KaosNewEvent, KaosNewEventList]);

/** `event_types`: a comma-separated list, or the parameter repeated. */
export const KaosSessionEventsQuery = z.object({
  event_types: z.union([z.string(), z.array(z.string())]).optional(),
});

export const KaosContextQuery = z.object({ max_events: z.coerce.number().int().min(1).max(10_000).default(20) });

export const KaosCleanupRequest = z.object({ max_age_hours: z.number().min(0).max(1_000_000).default(24) });

// Answers.
export const KaosEventBody = z.object({
  event_id: z.string(),
  timestamp: z.string().meta({ description: "ISO 8601 in UTC, as Python's datetime.isoformat() writes it" }),
  event_type: KaosEventType,
  content: z.unknown(),
  metadata: z.record(z.string(), z.unknown()),
});

export const KaosEventsResponse = z
  .object({ agent: z.string(), events: z.array(KaosEventBody), total: z.number().int() })
  .meta({ description: 'The most recent events, oldest first' });
export const KaosSessionEventsResponse = KaosEventsResponse.extend({ session_id: z.string() }).meta({
  description: "The session's events, oldest first",
});
export const KaosSessionsResponse = z
  .object({ agent: z.string(), sessions: z.array(z.string()), total: z.number().int() })
  .meta({ description: 'Session ids, oldest first' });
export const KaosSessionBody = z
  .object({
    session_id: z.string(),
    user_id: z.string(),
    app_name: z.string(),
    events: z.array(KaosEventBody),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ description: 'The session as KAOS serializes it (SessionMemory.to_dict)' });
export const KaosCreatedSession = z.object({ session_id: z.string(), created: z.boolean() });
export const KaosAddedEvents = z
  .object({ added: z.number().int(), event_ids: z.array(z.string()) })
  .meta({ description: 'Events stored (a resent event id is stored once)' });
export const KaosDeleted = z.object({ deleted: z.boolean() });
export const KaosContextResponse = z
  .object({ session_id: z.string(), context: z.string() })
  .meta({ description: 'The "User: ...\\nAssistant: ..." text of the latest messages' });
export const KaosCleaned = z.object({ cleaned: z.number().int() });

/**
 * A KAOS write Kafka has that the converter had not applied when the wait ended (memstream's 202:
 * KAOS itself answers only once done); it will be. What the write named comes back beside it.
 */
export const KaosAccepted = z
  .object({ status: z.enum(['accepted']) })
  .meta({ description: 'Applying it outlasted REQUEST_SYNC_TIMEOUT_MS; Kafka has it and it will be applied' });
export const KaosSessionAccepted = KaosAccepted.extend({ session_id: z.string() });
export const KaosEventsAccepted = KaosAccepted.extend({ event_ids: z.array(z.string()) });
export const KaosStats = z.object({
  total_sessions: z.number().int(),
  total_events: z.number().int(),
  avg_events_per_session: z.number().int(),
});
