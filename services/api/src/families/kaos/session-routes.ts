import { z } from 'zod';
import { parseOrThrow, principalOf } from '@memstream/http';
import { kaosDocs as docs } from './docs.js';
import { kaosSessionEvents, type Store } from '@memstream/store';
import {
  KaosAddEventsRequest,
  KaosAddedEvents,
  KaosContextQuery,
  KaosContextResponse,
  KaosCreateSessionRequest,
  KaosAccepted,
  KaosCreatedSession,
  KaosEventsAccepted,
  KaosSessionAccepted,
  KaosDeleted,
  KaosAgentHeaders,
  KaosHeaders,
  KaosNewEvent,
  KaosNewEventList,
  KaosSessionBody,
  KaosSessionEventsQuery,
  KaosSessionEventsResponse,
  KaosSessionParams,
  kaosSessionKey,
  type KaosEvent,
} from '@memstream/schemas';
import { contextOf, eventTypesOf, kaosId, ownerOf, sessionIdOf, type KaosOps } from './kaos-ops.js';
import { replyResultOrAccepted } from './reply-result-or-accepted.js';
import type { Halves } from '../../shared/halves.js';
import { requireOwnSender } from '../../shared/sender.js';
import { keepRawBody, rawEventTexts, refuseLargeRead, sendWithEvents } from './event-json.js';
import { sessionWritable } from './append-gate.js';

// The session id of a path is parsed by sessionIdOf, not by fastify: KAOS answers 404, not 400,
// for the ids a path resolves away ('', '.', '..'), and delete_session answers False for them.

/** A list body is parsed as `events`, so a problem is named by its position (events.3.event_type). */
const EventList = z.object({ events: KaosNewEventList });

/** One route per operation of KAOS's LocalMemory that changes or reads one session. */
export function registerKaosSessionRoutes({ writes, reads }: Halves, ops: KaosOps, store: Store): void {
  writes?.post(
    '/memory/sessions',
    docs.route({
      headers: KaosHeaders,
      summary: 'Create a session (create_session), or with get_or_create the existing one (get_or_create_session)',
      body: KaosCreateSessionRequest,
      emptyBody: {},
      description:
        "403 when a person's token names another user_id or sends X-KAOS-Max-Sessions or X-KAOS-Max-Session-Events (an agent's). Past the session limit, a person's create evicts only sessions they manage.",
      responses: { 201: KaosCreatedSession, 200: KaosCreatedSession, 202: KaosSessionAccepted },
    }),
    async (request, reply) => {
      const body = request.body;
      const principal = principalOf(request);
      // a person creates sessions for themselves (the sender rule: user_id is who speaks in it)
      requireOwnSender(request, body.user_id, 'user_id');
      const agent = ops.agent(request);
      const sessionId = body.session_id || kaosId('session', 12);
      const result = await ops.send(request, 'kaos.session.created', {
        group_id: kaosSessionKey(agent, sessionId),
        agent,
        session_id: sessionId,
        app_name: body.app_name,
        user_id: body.user_id ?? (principal.kind === 'user' ? principal.userId : 'user'),
        get_or_create: body.get_or_create,
        owner_user_id: ownerOf(request, body.user_id),
        ...ops.limits(request),
      });
      return replyResultOrAccepted(reply, result, result?.['created'] === false ? 200 : 201, { session_id: sessionId });
    },
  );

  reads?.get(
    '/memory/sessions/:sessionId',
    docs.route({
      headers: KaosAgentHeaders,
      summary: 'A session with its events (get_session)',
      params: KaosSessionParams,
      parsedByHandler: ['params'],
      responses: { 200: KaosSessionBody, 413: "The session's events are past 64 MiB of JSON" },
    }),
    async (request, reply) => {
      const sessionId = sessionIdOf(request);
      const s = await ops.session(request, sessionId);
      await refuseLargeRead(store, s.conversation_id);
      const events = await kaosSessionEvents(store, s.conversation_id);
      return sendWithEvents(
        reply,
        {
          session_id: s.session_id,
          user_id: s.user_id,
          app_name: s.app_name,
          events: [],
          created_at: s.created_at,
          updated_at: s.updated_at,
        },
        events,
      );
    },
  );

  writes?.delete(
    '/memory/sessions/:sessionId',
    docs.route({
      headers: KaosAgentHeaders,
      summary: 'Delete a session and its events (delete_session); its conversation is deleted in every family',
      params: KaosSessionParams,
      parsedByHandler: ['params'],
      responses: { 200: KaosDeleted, 202: KaosAccepted },
    }),
    async (request, reply) => {
      const raw = (request.params as { sessionId?: string }).sessionId;
      // A session that cannot exist is not deleted: KAOS's delete_session answers False.
      if (raw === '' || raw === '.' || raw === '..') return { deleted: false };
      const sessionId = sessionIdOf(request);
      const agent = ops.agent(request);
      return replyResultOrAccepted(
        reply,
        await ops.send(request, 'kaos.session.deleted', {
          group_id: kaosSessionKey(agent, sessionId),
          agent,
          session_id: sessionId,
        }),
      );
    },
  );

  writes?.post(
    '/memory/sessions/:sessionId/events',
    {
      ...docs.route({
        headers: KaosHeaders,
        summary: 'Add one event or a list (add_event); 404 when the session does not exist',
        description:
          "403 when a person's token sends X-KAOS-Max-Sessions or X-KAOS-Max-Session-Events (an agent's), or when a member below manager would take the session past its event limit, which drops its oldest events (nothing is stored).",
        params: KaosSessionParams,
        body: KaosAddEventsRequest,
        // a list is parsed as `events`, so a problem is named by its position (events.3.event_type)
        parsedByHandler: ['params', 'body'],
        responses: {
          201: KaosAddedEvents,
          202: KaosEventsAccepted,
          413: 'An event whose content is past 1 MiB of JSON, or that does not fit one Kafka record (KAFKA_MAX_MESSAGE_BYTES)',
        },
      }),
      // who may write first, then sizes on the raw bytes, then the schema (see append-gate.ts)
      preParsing: [sessionWritable(ops, store), keepRawBody],
    },
    async (request, reply) => {
      // A limit the caller may not set is refused before the body is read.
      const limits = ops.limits(request);
      const sessionId = sessionIdOf(request);
      // Content and metadata travel and are stored as the client wrote them (see event-json.ts).
      const texts = rawEventTexts(request);
      const given = Array.isArray(request.body)
        ? parseOrThrow(EventList, { events: request.body }).events
        : [parseOrThrow(KaosNewEvent, request.body)];
      const now = new Date().toISOString();
      // KAOS's generated ids have 32 bits: in a list of 1000 two may meet, and a list may not name one event twice.
      const taken = new Set(given.map((e) => e.event_id));
      const fresh = (): string => {
        let id: string;
        do id = kaosId('event', 8);
        while (taken.has(id));
        taken.add(id);
        return id;
      };
      const events: KaosEvent[] = given.map((e, i) => {
        const text = texts?.[i];
        return {
          event_id: e.event_id ?? fresh(),
          timestamp: e.timestamp ?? now,
          event_type: e.event_type,
          // Given its text, content travels once, as that text (content_json); the value is left null.
          ...(text ? { content: null, content_json: text.content } : { content: e.content }),
          metadata: e.metadata,
          ...(text?.metadata !== undefined ? { metadata_json: text.metadata } : {}),
        };
      });
      const agent = ops.agent(request);
      const result = await ops.send(request, 'kaos.events.appended', {
        group_id: kaosSessionKey(agent, sessionId),
        agent,
        session_id: sessionId,
        events,
        ...limits,
      });
      return replyResultOrAccepted(reply, result, 201, { event_ids: events.map((e) => e.event_id) });
    },
  );

  reads?.get(
    '/memory/sessions/:sessionId/events',
    docs.route({
      headers: KaosAgentHeaders,
      summary: "A session's events, oldest first, optionally of some types (get_session_events)",
      params: KaosSessionParams,
      parsedByHandler: ['params'],
      querystring: KaosSessionEventsQuery,
      responses: {
        200: KaosSessionEventsResponse,
        413: 'The events asked for are past 64 MiB of JSON: ask for some types (event_types)',
      },
    }),
    async (request, reply) => {
      const sessionId = sessionIdOf(request);
      const types = eventTypesOf(request.query.event_types);
      const s = await ops.session(request, sessionId);
      await refuseLargeRead(store, s.conversation_id, types);
      const events = await kaosSessionEvents(store, s.conversation_id, types);
      return sendWithEvents(
        reply,
        { agent: s.agent, session_id: s.session_id, events: [], total: events.length },
        events,
      );
    },
  );

  reads?.get(
    '/memory/sessions/:sessionId/context',
    docs.route({
      headers: KaosAgentHeaders,
      summary: 'The latest user and agent messages as "User: ...\\nAssistant: ..." text (build_conversation_context)',
      params: KaosSessionParams,
      parsedByHandler: ['params'],
      querystring: KaosContextQuery,
      responses: {
        200: KaosContextResponse,
        413: 'The context text would pass 8 Mi characters: ask for fewer (max_events)',
      },
    }),
    async (request) => {
      const sessionId = sessionIdOf(request);
      const { max_events } = request.query;
      const s = await ops.session(request, sessionId);
      const messages = await kaosSessionEvents(
        store,
        s.conversation_id,
        ['user_message', 'agent_response'],
        max_events,
      );
      return { session_id: s.session_id, context: contextOf(messages, max_events) };
    },
  );
}
