import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { parseCreateTime, SearchMemoriesRequest as Search } from '@memstream/schemas';
import { parseOrThrow } from '@memstream/http';
import { everMemOsDocs } from './docs.js';
import { pendingMessages, type Store } from '@memstream/store';
import { searchMemories, type QueryEmbedder } from '@memstream/search';
import { hitView, messageView } from './memory-views.js';
import { audiencesFor, mayAccess, personOf } from '../../shared/access.js';

/** A query string gives lists as repeated keys or comma-separated values; accept both. */
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

/**
 * GET and POST /api/v1/memories/search: keyword (BM25), vector (cosine), hybrid (weighted) or
 * rrf search over messages and episodic memories, best first, scores in [0, 1]. With a group,
 * `pending_messages` lists its messages no episode holds yet, so an open episode hides nothing.
 */
export function registerSearchMemories(app: FastifyInstance, deps: { store: Store; embedder: QueryEmbedder }): void {
  const search = async (input: z.infer<typeof Search>, request: FastifyRequest) => {
    const from = input.start_time !== undefined ? parseCreateTime(input.start_time) : undefined;
    const to = input.end_time !== undefined ? parseCreateTime(input.end_time) : undefined;
    const visibleTo = personOf(request);
    const audiences = audiencesFor(request);
    const filters = {
      conversationId: input.group_id,
      userId: input.user_id,
      kinds: [...new Set(input.memory_types)],
      from,
      to,
      visibleTo,
      audiences,
    };
    const showPending = input.group_id !== undefined && (await mayAccess(deps.store, request, input.group_id));
    const [hits, pending] = await Promise.all([
      searchMemories(deps.store, deps.embedder, {
        query: input.query,
        method: input.retrieve_method,
        topK: input.top_k,
        filters,
      }),
      showPending && input.group_id
        ? pendingMessages(deps.store, input.group_id, {
            senderId: input.user_id,
            from,
            to,
            audiences,
            limit: PENDING_LIMIT,
          })
        : Promise.resolve([]),
    ]);
    return {
      status: 'ok',
      message: `Found ${hits.length} memories`,
      result: {
        memories: hits.map(hitView),
        total_count: hits.length,
        retrieve_method: input.retrieve_method,
        pending_messages: pending.map(messageView),
      },
    };
  };
  const answer = { 200: 'result.memories (best first, scores in [0, 1]), result.total_count, result.pending_messages' };
  const summary = 'Search messages and episodic memories: keyword (BM25), vector (cosine), hybrid or rrf';
  app.get(
    '/api/v1/memories/search',
    everMemOsDocs.route({ summary, querystring: Search, responses: answer }),
    async (request) => search(parseOrThrow(Search, fromQueryString(request.query), 'query'), request),
  );
  app.post(
    '/api/v1/memories/search',
    everMemOsDocs.route({ summary, body: Search, responses: answer }),
    async (request) => search(parseOrThrow(Search, request.body), request),
  );
}
