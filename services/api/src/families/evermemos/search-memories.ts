import type { ZodApp } from '@memstream/http';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AppError } from '@memstream/errors';
import {
  everMemOsScope,
  FlatSearchAnswer,
  GroupedSearchAnswer,
  MAGIC_ALL,
  parseCreateTime,
  SearchMemoriesPost,
  SearchMemoriesQueryDocument,
  SearchMemoriesRequest as Search,
} from '@memstream/schemas';
import { parseOrThrow, queryWithGetBody } from '@memstream/http';
import { everMemOsDocs } from './docs.js';
import { pendingMessages, type Store } from '@memstream/store';
import { searchMemories, type QueryEmbedder } from '@memstream/search';
import { explainedHitView, groupedHits, hitView, pendingView } from './memory-views.js';
import { audiencesFor, mayAccess, personOf } from '../../shared/access.js';

/** A query string (or an EverMemOS body) gives lists as repeated keys or comma-separated values; accept both. */
function fromQueryString(query: unknown): unknown {
  if (query === null || typeof query !== 'object') return query;
  const q = { ...(query as Record<string, unknown>) };
  const types = q['memory_types'];
  if (types !== undefined)
    q['memory_types'] = (Array.isArray(types) ? types : [types])
      .flatMap((t) => String(t).split(','))
      .map((t) => t.trim())
      .filter(Boolean);
  return q;
}

/** How many open-span messages a search returns beside its hits (an open episode holds at most the cap). */
const PENDING_LIMIT = 200;

/** Which answer a search gets: EverMemOS's clients search with GET; POST is memstream's own. */
type Dialect = 'evermemos-grouped' | 'memstream-flat';

/**
 * GET and POST /api/v1/memories/search: keyword (BM25), vector (cosine), hybrid (weighted) or
 * rrf search over messages and episodic memories, scores in [0, 1]; `agentic` (EverMemOS's
 * model-guided rounds) runs hybrid. With a group, `pending_messages` lists its messages no episode
 * holds yet, so an open episode hides nothing.
 *
 * Two dialects, chosen by the method. GET is how EverMemOS's clients search (parameters in the
 * query string or a JSON body on the GET, the body winning): `memories` grouped by group as its
 * server answers, with `scores`, `importance_scores` and `metadata`, and, as there, a group or a
 * user must be named. POST, which EverMemOS has not, keeps memstream's flat ranked list, best
 * first, and may search every group the caller can read.
 */
export function registerSearchMemories(app: ZodApp, deps: { store: Store; embedder: QueryEmbedder }): void {
  const search = async (
    input: z.infer<typeof Search> & { explain?: boolean },
    request: FastifyRequest,
    dialect: Dialect,
  ) => {
    // only memstream's own dialect explains: EverMemOS's GET answers exactly as its server does
    const explain = dialect === 'memstream-flat' && input.explain === true;
    const scope = everMemOsScope(input.group_id, input.user_id, dialect === 'evermemos-grouped');
    if ('refusal' in scope) throw new AppError('INVALID_PARAMETER', scope.refusal);
    const from = input.start_time !== undefined ? parseCreateTime(input.start_time) : undefined;
    const to = input.end_time !== undefined ? parseCreateTime(input.end_time) : undefined;
    const visibleTo = personOf(request);
    const audiences = audiencesFor(request);
    // memstream forms only these two kinds; asking for EverMemOS's others finds nothing
    const kinds = [...new Set(input.memory_types)].filter((k) => k === 'message' || k === 'episodic_memory');
    const method = input.retrieve_method === 'agentic' ? 'hybrid' : input.retrieve_method;
    const filters = {
      conversationId: scope.conversationId,
      // an EverMemOS group is a conversation of its own group: one shard (docs/store.md)
      groupKey: scope.conversationId,
      userId: scope.userId,
      kinds,
      from,
      to,
      visibleTo,
      audiences,
    };
    const group = scope.conversationId;
    const showPending = group !== undefined && scope.userId !== null && (await mayAccess(deps.store, request, group));
    const [hits, pending] = await Promise.all([
      kinds.length === 0
        ? Promise.resolve([])
        : searchMemories(deps.store, deps.embedder, {
            query: input.query,
            method,
            topK: input.top_k,
            filters,
            explain,
          }),
      showPending && group !== undefined
        ? pendingMessages(deps.store, group, {
            groupKey: group,
            senderId: scope.userId ?? undefined,
            from,
            to,
            audiences,
            limit: PENDING_LIMIT,
          })
        : Promise.resolve([]),
    ]);
    if (dialect === 'memstream-flat') {
      return {
        status: 'ok' as const,
        message: `Found ${hits.length} memories`,
        result: {
          memories: hits.map(explain ? explainedHitView : hitView),
          total_count: hits.length,
          retrieve_method: input.retrieve_method,
          pending_messages: pending.map(pendingView),
        },
      };
    }
    const grouped = groupedHits(hits);
    const metadata = {
      // the method's name, as EverMemOS's server says it since 2026 (v1.1.0 said `hybrid_retrieval`)
      source: method,
      user_id: input.user_id === undefined ? MAGIC_ALL : (input.user_id ?? ''),
      memory_type: 'retrieve',
      limit: input.top_k,
      ...(input.group_id !== undefined ? { group_id: input.group_id } : {}),
    };
    return {
      status: 'ok' as const,
      message: `Memory search successful, retrieved ${grouped.memories.length} groups`,
      result: {
        ...grouped,
        original_data: [],
        total_count: hits.length,
        has_more: false,
        retrieve_method: input.retrieve_method,
        query_metadata: metadata,
        metadata,
        pending_messages: pending.map(pendingView),
      },
    };
  };
  const summary =
    'Search messages and episodic memories: keyword (BM25), vector (cosine), hybrid, rrf (agentic runs hybrid)';
  app.get(
    '/api/v1/memories/search',
    everMemOsDocs.route({
      summary,
      description:
        "EverMemOS's dialect: the parameters may also come as a JSON body on the GET (the body wins); memories are grouped by group.",
      querystring: SearchMemoriesQueryDocument,
      // EverMemOS's clients send a GET's parameters as a JSON body too: merged with the query, then parsed
      parsedByHandler: ['querystring'],
      responses: {
        200: GroupedSearchAnswer.meta({
          description:
            'result.memories: [{group_id: [memory, ...]}], groups best first, memories in time order; result.scores alike; result.pending_messages: the open span',
        }),
      },
    }),
    async (request) =>
      (await search(
        parseOrThrow(Search, fromQueryString(await queryWithGetBody(request)), 'query'),
        request,
        'evermemos-grouped',
      )) as z.output<typeof GroupedSearchAnswer>,
  );
  app.post(
    '/api/v1/memories/search',
    everMemOsDocs.route({
      summary,
      description:
        "memstream's dialect: one ranked list. With `explain: true`, each hit also carries `score_parts`: `keyword` and `vector` ({rank, score} and {rank, similarity}: the hit's place in that method's own list, null when that list did not hold it or the method did not run), `terms` ([{name, weight, value}]), `divisor`, and `fused`, the unrounded score, which is the sum of weight × value over the terms divided by the divisor.",
      body: SearchMemoriesPost,
      responses: {
        200: FlatSearchAnswer.meta({
          description:
            'result.memories best first, scores in [0, 1] (with explain, each with score_parts); result.pending_messages: the open span',
        }),
      },
    }),
    async (request) => (await search(request.body, request, 'memstream-flat')) as z.output<typeof FlatSearchAnswer>,
  );
}
