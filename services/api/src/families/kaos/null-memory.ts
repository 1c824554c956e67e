import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '@memstream/errors';
import { parseOrThrow } from '@memstream/http';
import { kaosDocs as docs } from './docs.js';
import {
  KaosAddEventsRequest,
  KaosAddedEvents,
  KaosCleaned,
  KaosCleanupRequest,
  KaosContextQuery,
  KaosContextResponse,
  KaosCreateSessionRequest,
  KaosCreatedSession,
  KaosDeleted,
  KaosAgentHeaders,
  KaosEventsQuery,
  KaosEventsResponse,
  KaosListSessionsQuery,
  KaosNewEvent,
  KaosSessionEventsQuery,
  KaosSessionEventsResponse,
  KaosSessionParams,
  KaosSessionsResponse,
  KaosStats,
} from '@memstream/schemas';
import { kaosId } from './kaos-ops.js';
import type { Halves } from '../../shared/halves.js';
import { fastApiInt } from './memory-routes.js';

const EventList = z.object({ events: z.array(KaosNewEvent).min(1).max(1000) });

/**
 * MEMORY_ENABLED=false: KAOS's NullMemory behind the same routes. Every call succeeds and
 * nothing is kept; ids are `null_<8 hex>`; a session never exists when read back. Input is still
 * validated, so a client finds its mistakes before memory is switched on.
 */
export function registerNullMemoryRoutes(
  { writes, reads }: Halves,
  agentOf: (request: FastifyRequest) => string,
): void {
  const nothing = (agent: string) => ({ agent, events: [], total: 0 });
  writes?.post(
    '/memory/sessions',
    docs.route({
      headers: KaosAgentHeaders,
      summary: 'Create a session (memory disabled: nothing is kept)',
      body: KaosCreateSessionRequest,
      emptyBody: {},
      responses: { 201: KaosCreatedSession },
    }),
    async (request, reply) => {
      const body = request.body;
      // NullMemory.create_session answers the id it was given, or one constant id.
      return reply.code(201).send({ session_id: body.session_id || 'null-session', created: true });
    },
  );
  reads?.get(
    '/memory/sessions/:sessionId',
    docs.route({
      headers: KaosAgentHeaders,
      summary: 'A session (memory disabled: never found)',
      params: KaosSessionParams,
      responses: { 404: 'Never found: nothing is kept' },
    }),
    async (request) => {
      const { sessionId } = request.params;
      throw new AppError('RESOURCE_NOT_FOUND', `Session not found: ${sessionId}`);
    },
  );
  writes?.delete(
    '/memory/sessions/:sessionId',
    docs.route({
      headers: KaosAgentHeaders,
      summary: 'Delete a session (memory disabled: always true)',
      params: KaosSessionParams,
      responses: { 200: KaosDeleted },
    }),
    async () => ({ deleted: true }),
  );
  writes?.post(
    '/memory/sessions/:sessionId/events',
    docs.route({
      headers: KaosAgentHeaders,
      summary: 'Add events (memory disabled: accepted and dropped)',
      params: KaosSessionParams,
      body: KaosAddEventsRequest,
      // a list is parsed as `events`, so a problem is named by its position (events.3.event_type)
      parsedByHandler: ['body'],
      responses: { 201: KaosAddedEvents },
    }),
    async (request, reply) => {
      const given = Array.isArray(request.body)
        ? parseOrThrow(EventList, { events: request.body }).events
        : [parseOrThrow(KaosNewEvent, request.body)];
      return reply
        .code(201)
        .send({ added: given.length, event_ids: given.map((e) => e.event_id ?? kaosId('null', 8)) });
    },
  );
  reads?.get(
    '/memory/sessions/:sessionId/events',
    docs.route({
      headers: KaosAgentHeaders,
      summary: "A session's events (memory disabled: none)",
      params: KaosSessionParams,
      querystring: KaosSessionEventsQuery,
      responses: { 200: KaosSessionEventsResponse },
    }),
    async (request) => {
      const { sessionId } = request.params;
      return { ...nothing(agentOf(request)), session_id: sessionId };
    },
  );
  reads?.get(
    '/memory/sessions/:sessionId/context',
    docs.route({
      headers: KaosAgentHeaders,
      summary: 'Context text (memory disabled: empty)',
      params: KaosSessionParams,
      querystring: KaosContextQuery,
      responses: { 200: KaosContextResponse },
    }),
    async (request) => {
      const { sessionId } = request.params;
      return { session_id: sessionId, context: '' };
    },
  );
  reads?.get(
    '/memory/events',
    docs.route({
      headers: KaosAgentHeaders,
      summary: "KAOS's GET /memory/events (memory disabled: none)",
      querystring: KaosEventsQuery,
      // limit is read as FastAPI reads an int (the last of a repeated one; 422 with a list detail)
      parsedByHandler: ['querystring'],
      responses: {
        200: KaosEventsResponse,
        422: 'limit is not an integer: {"detail": [{"type": "int_parsing", "loc": ["query", "limit"], "msg", "input"}]}, as FastAPI answers',
      },
    }),
    async (request, reply) => {
      const asked = fastApiInt(request.query, 'limit', 100);
      if (typeof asked !== 'bigint') return reply.code(422).send(asked);
      parseOrThrow(KaosEventsQuery, { ...(request.query as object), limit: undefined }, 'query');
      return nothing(agentOf(request));
    },
  );
  reads?.get(
    '/memory/sessions',
    docs.route({
      headers: KaosAgentHeaders,
      summary: "KAOS's GET /memory/sessions (memory disabled: none)",
      querystring: KaosListSessionsQuery,
      responses: { 200: KaosSessionsResponse },
    }),
    async (request) => {
      return { agent: agentOf(request), sessions: [], total: 0 };
    },
  );
  writes?.post(
    '/memory/cleanup',
    docs.route({
      headers: KaosAgentHeaders,
      summary: 'Cleanup (memory disabled: nothing to clean)',
      body: KaosCleanupRequest,
      emptyBody: {},
      responses: { 200: KaosCleaned },
    }),
    async () => ({ cleaned: 0 }),
  );
  reads?.get(
    '/memory/stats',
    docs.route({
      headers: KaosAgentHeaders,
      summary: 'Statistics (memory disabled: zero)',
      responses: { 200: KaosStats },
    }),
    async () => ({ total_sessions: 0, total_events: 0, avg_events_per_session: 0 }),
  );
}
