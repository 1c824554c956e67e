import { ArkStreamStatistics } from '@memstream/schemas';
import { arkStreamStatistics, type Store } from '@memstream/store';
import type { ZodApp } from '@memstream/http';
import { personOf } from '../../shared/access.js';
import { arkDocs } from './docs.js';

/**
 * GET /stream-statistics: ARK's reference service's account of its relayed streams, per stream
 * (named by session or query id), limited to the streams the caller may read. As there, a
 * completed stream counts the `[DONE]` its completion adds among its chunks, and the chunk kinds
 * are counted without it.
 */
export function registerArkStreamStatistics(app: ZodApp, deps: { store: Store }): void {
  const docs = arkDocs.route({
    summary: 'Chunk counts and completion of every relayed stream the caller may read',
    responses: { 200: ArkStreamStatistics },
  });
  app.get('/stream-statistics', docs, async (request) => {
    const streams = await arkStreamStatistics(deps.store, { visibleTo: personOf(request) });
    const queries: Record<string, ArkStreamStatistics['queries'][string]> = {};
    for (const s of streams)
      queries[s.sessionId] = {
        total_chunks: s.chunks + (s.completed ? 1 : 0),
        completed: s.completed,
        has_done_marker: s.completed,
        chunk_types: {
          content: s.content,
          tool_calls: s.toolCalls,
          finish_reason: s.finishReason,
          unknown: s.unknown,
        },
      };
    return { total_queries: streams.length, queries };
  });
}
