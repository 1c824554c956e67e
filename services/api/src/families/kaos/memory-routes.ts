import { AppError } from '@memstream/errors';
import { parseOrThrow } from '@memstream/http';
import { kaosDocs as docs } from './docs.js';
import { kaosStats, latestKaosEvents, listKaosSessions, type Store } from '@memstream/store';
import {
  KaosCleaned,
  KaosCleanupRequest,
  KaosAccepted,
  KaosAgentHeaders,
  KaosEventsQuery,
  PYTHON_INT_PATTERN,
  KaosEventsResponse,
  KaosListSessionsQuery,
  KaosSessionsResponse,
  KaosStats,
  kaosAgentKey,
} from '@memstream/schemas';
import { viewerOf, type KaosOps } from './kaos-ops.js';
import { replyResultOrAccepted } from './reply-result-or-accepted.js';
import type { Halves } from '../../shared/halves.js';
import { KAOS_READ_MAX_BYTES, sendWithEvents } from './event-json.js';

/** KAOS's answers at most this many events however many are asked for (it caps, it does not refuse). */
const MAX_EVENTS = 1000;

/**
 * An integer query parameter read as FastAPI reads one: the last of a repeated parameter, in
 * pydantic's syntax (see PYTHON_INT_PATTERN); otherwise FastAPI's 422 body, detail a list.
 */
export function fastApiInt(query: unknown, name: string, fallback: number): bigint | { detail: unknown[] } {
  const given = (query as Record<string, string | string[] | undefined>)[name];
  const value = Array.isArray(given) ? given.at(-1) : given;
  if (value === undefined) return BigInt(fallback);
  if (PYTHON_INT_PATTERN.test(value)) return BigInt(value.trim().replace(/_/g, '').replace(/\.0+$/, ''));
  return {
    detail: [
      {
        type: 'int_parsing',
        loc: ['query', name],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: value,
      },
    ],
  };
}

/** KAOS's own two reads, exactly as its agent server answers them, and the agent-wide operations. */
export function registerKaosMemoryRoutes({ writes, reads }: Halves, ops: KaosOps, store: Store): void {
  reads?.get(
    '/memory/events',
    docs.route({
      headers: KaosAgentHeaders,
      summary: "KAOS's GET /memory/events: the latest events of the agent's sessions, or of one",
      querystring: KaosEventsQuery,
      // limit is read as FastAPI reads an int (the last of a repeated one; 422 with a list detail)
      parsedByHandler: ['querystring'],
      responses: {
        200: KaosEventsResponse,
        413: 'The events asked for are past 64 MiB of JSON: ask for fewer (limit) or one session (session_id)',
        422: 'limit is not an integer: {"detail": [{"type": "int_parsing", "loc": ["query", "limit"], "msg", "input"}]}, as FastAPI answers',
      },
    }),
    async (request, reply) => {
      const asked = fastApiInt(request.query, 'limit', 100);
      if (typeof asked !== 'bigint') return reply.code(422).send(asked);
      const query = parseOrThrow(KaosEventsQuery, { ...(request.query as object), limit: undefined }, 'query');
      const agent = ops.agent(request);
      // (past a billion below zero nothing is left either way; PostgreSQL's OFFSET is an int8)
      const limit = asked >= MAX_EVENTS ? MAX_EVENTS : asked < -1_000_000_000n ? -1_000_000_000 : Number(asked);
      const events = await latestKaosEvents(
        store,
        agent,
        viewerOf(request),
        // events[-limit:] of KAOS: a limit of 0 or below slices from the front
        { ...(limit > 0 ? { latest: limit } : { skip: -limit }), maxBytes: KAOS_READ_MAX_BYTES },
        query.session_id || undefined,
      );
      if (!Array.isArray(events))
        throw new AppError(
          'PAYLOAD_TOO_LARGE',
          `These events are ${events.tooLarge} bytes of JSON; a read sends at most ${KAOS_READ_MAX_BYTES}: ask for fewer (limit) or one session (session_id)`,
          { details: { field: 'limit' } },
        );
      return sendWithEvents(reply, { agent, events: [], total: events.length }, events);
    },
  );

  reads?.get(
    '/memory/sessions',
    docs.route({
      headers: KaosAgentHeaders,
      summary: "KAOS's GET /memory/sessions: the agent's session ids, optionally of one user (list_sessions)",
      querystring: KaosListSessionsQuery,
      responses: { 200: KaosSessionsResponse },
    }),
    async (request) => {
      const { user_id } = request.query;
      const agent = ops.agent(request);
      const sessions = await listKaosSessions(store, agent, viewerOf(request), user_id);
      return { agent, sessions, total: sessions.length };
    },
  );

  writes?.post(
    '/memory/cleanup',
    docs.route({
      headers: KaosAgentHeaders,
      summary: 'Delete sessions not updated for max_age_hours (cleanup_old_sessions)',
      body: KaosCleanupRequest,
      emptyBody: {},
      responses: { 200: KaosCleaned, 202: KaosAccepted },
    }),
    async (request, reply) => {
      const { max_age_hours } = request.body;
      const agent = ops.agent(request);
      const result = await ops.send(request, 'kaos.sessions.cleaned', {
        group_id: kaosAgentKey(agent),
        agent,
        updated_before: new Date(Date.now() - max_age_hours * 3_600_000).toISOString(),
        visible_to: viewerOf(request).userId ?? null,
      });
      return replyResultOrAccepted(reply, result);
    },
  );

  reads?.get(
    '/memory/stats',
    docs.route({
      headers: KaosAgentHeaders,
      summary: 'Sessions, events and events per session, truncated (get_memory_stats)',
      responses: { 200: KaosStats },
    }),
    async (request) => kaosStats(store, ops.agent(request), viewerOf(request)),
  );
}
