import type { z } from 'zod';
import type {
  KaosAddedEvents,
  KaosCleaned,
  KaosContextResponse,
  KaosCreatedSession,
  KaosCreateSessionRequest,
  KaosDeleted,
  KaosEventsResponse,
  KaosNewEvent,
  KaosSessionBody,
  KaosSessionEventsResponse,
  KaosSessionsResponse,
  KaosStats,
} from '@memstream/schemas';
import type { CallOptions, Http } from './http.js';
import { ROUTES } from './routes.js';

const R = ROUTES.kaos;
type Out<S extends z.ZodType> = z.infer<S>;
type NewEvent = z.input<typeof KaosNewEvent>;

/**
 * KAOS agent memory: sessions and typed events in an agent's namespace (the client's
 * `kaosAgent`). The client gives every event without an `event_id` one of its own, and a session
 * without an id its id, before the first attempt: the server stores an event id once per session,
 * so a call retried after a lost connection adds nothing twice.
 */
export class Kaos {
  constructor(private readonly http: Http) {}

  createSession(
    request: z.input<typeof KaosCreateSessionRequest> = {},
    options?: CallOptions,
  ): Promise<Out<typeof KaosCreatedSession>> {
    const body = { ...request, session_id: request.session_id || `session_${randomHex(12)}` };
    // A repeated create_session of the same id answers the same empty session (get_or_create keeps it).
    return this.http.call(R.createSession, { body }, options, true);
  }

  getSession(sessionId: string, options?: CallOptions): Promise<Out<typeof KaosSessionBody>> {
    return this.http.call(R.getSession, { params: { sessionId } }, options);
  }

  listSessions(userId?: string, options?: CallOptions): Promise<Out<typeof KaosSessionsResponse>> {
    return this.http.call(R.listSessions, { query: userId === undefined ? {} : { user_id: userId } }, options);
  }

  deleteSession(sessionId: string, options?: CallOptions): Promise<Out<typeof KaosDeleted>> {
    return this.http.call(R.deleteSession, { params: { sessionId } }, options);
  }

  /** Adds one event or a list (1 to 1000), in order. */
  addEvents(
    sessionId: string,
    events: NewEvent | NewEvent[],
    options?: CallOptions,
  ): Promise<Out<typeof KaosAddedEvents>> {
    const withIds = (Array.isArray(events) ? events : [events]).map((e) => ({
      ...e,
      event_id: e.event_id ?? `evt_${randomHex(16)}`,
    }));
    return this.http.call(R.addEvents, { params: { sessionId }, body: withIds }, options, true);
  }

  sessionEvents(
    sessionId: string,
    eventTypes?: string[],
    options?: CallOptions,
  ): Promise<Out<typeof KaosSessionEventsResponse>> {
    return this.http.call(
      R.sessionEvents,
      { params: { sessionId }, query: eventTypes ? { event_types: eventTypes.join(',') } : {} },
      options,
    );
  }

  /** The latest user and agent messages as "User: ...\nAssistant: ..." text. */
  context(sessionId: string, maxEvents?: number, options?: CallOptions): Promise<Out<typeof KaosContextResponse>> {
    return this.http.call(
      R.context,
      { params: { sessionId }, query: maxEvents === undefined ? {} : { max_events: maxEvents } },
      options,
    );
  }

  /** KAOS's own GET /memory/events: the latest events of the agent's sessions, or of one. */
  events(
    query: { limit?: number; session_id?: string } = {},
    options?: CallOptions,
  ): Promise<Out<typeof KaosEventsResponse>> {
    const { limit, ...rest } = query;
    return this.http.call(
      R.events,
      { query: { ...rest, ...(limit === undefined ? {} : { limit: String(limit) }) } },
      options,
    );
  }

  /** Deletes sessions not updated for `maxAgeHours`. */
  cleanup(maxAgeHours?: number, options?: CallOptions): Promise<Out<typeof KaosCleaned>> {
    return this.http.call(
      R.cleanup,
      { body: maxAgeHours === undefined ? {} : { max_age_hours: maxAgeHours } },
      options,
    );
  }

  stats(options?: CallOptions): Promise<Out<typeof KaosStats>> {
    return this.http.call(R.stats, {}, options);
  }
}

/** Web Crypto, in Node 20 and in browsers alike. */
function randomHex(chars: number): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(Math.ceil(chars / 2)));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0'))
    .join('')
    .slice(0, chars);
}
