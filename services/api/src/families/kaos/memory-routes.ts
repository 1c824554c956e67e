import { parseOrThrow } from '@memstream/http';
import { kaosDocs as docs } from './docs.js';
import { kaosStats, latestKaosEvents, listKaosSessions, type Store } from '@memstream/store';
import {
  KaosCleaned,
  KaosCleanupRequest,
  KaosHeaders,
  KaosEventsQuery,
  KaosEventsResponse,
  KaosListSessionsQuery,
  KaosSessionsResponse,
  KaosStats,
  kaosAgentKey,
} from '@memstream/schemas';
import { viewerOf, type KaosOps } from './kaos-ops.js';
import { answerWrite } from './answer-write.js';
import type { Halves } from '../../shared/halves.js';

/** KAOS's answers at most this many events however many are asked for (it caps, it does not refuse). */
const MAX_EVENTS = 1000;

/** KAOS's own two reads, exactly as its agent server answers them, and the agent-wide operations. */
export function registerKaosMemoryRoutes({ writes, reads }: Halves, ops: KaosOps, store: Store): void {
  reads?.get(
    '/memory/events',
    docs.route({
      headers: KaosHeaders,
      summary: "KAOS's GET /memory/events: the latest events of the agent's sessions, or of one",
      querystring: KaosEventsQuery,
      responses: { 200: KaosEventsResponse },
    }),
    async (request) => {
      const query = parseOrThrow(KaosEventsQuery, request.query, 'query');
      const agent = ops.agent(request);
      const events = await latestKaosEvents(
        store,
        agent,
        viewerOf(request),
        Math.min(query.limit, MAX_EVENTS),
        query.session_id,
      );
      return { agent, events, total: events.length };
    },
  );

  reads?.get(
    '/memory/sessions',
    docs.route({
      headers: KaosHeaders,
      summary: "KAOS's GET /memory/sessions: the agent's session ids, optionally of one user (list_sessions)",
      querystring: KaosListSessionsQuery,
      responses: { 200: KaosSessionsResponse },
    }),
    async (request) => {
      const { user_id } = parseOrThrow(KaosListSessionsQuery, request.query, 'query');
      const agent = ops.agent(request);
      const sessions = await listKaosSessions(store, agent, viewerOf(request), user_id);
      return { agent, sessions, total: sessions.length };
    },
  );

  writes?.post(
    '/memory/cleanup',
    docs.route({
      headers: KaosHeaders,
      summary: 'Delete sessions not updated for max_age_hours (cleanup_old_sessions)',
      body: KaosCleanupRequest,
      responses: { 200: KaosCleaned, 202: 'Accepted, not yet applied' },
    }),
    async (request, reply) => {
      const { max_age_hours } = parseOrThrow(KaosCleanupRequest, request.body ?? {});
      const agent = ops.agent(request);
      const result = await ops.send(request, 'kaos.sessions.cleaned', {
        group_id: kaosAgentKey(agent),
        agent,
        updated_before: new Date(Date.now() - max_age_hours * 3_600_000).toISOString(),
        visible_to: viewerOf(request).userId ?? null,
      });
      return answerWrite(reply, result);
    },
  );

  reads?.get(
    '/memory/stats',
    docs.route({
      headers: KaosHeaders,
      summary: 'Sessions, events and events per session, truncated (get_memory_stats)',
      responses: { 200: KaosStats },
    }),
    async (request) => kaosStats(store, ops.agent(request), viewerOf(request)),
  );
}
