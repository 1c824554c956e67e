import type { ZodApp } from '@memstream/http';
import { MemoryStatsAnswer, MemoryStatsQuery as Query } from '@memstream/schemas';
import { AppError } from '@memstream/errors';
import { everMemOsDocs } from './docs.js';
import { lastSequence, memoryStats, type Store } from '@memstream/store';
import type { QueryEmbedder } from '@memstream/search';
import { audiencesFor, requireAccess } from '../../shared/access.js';

/**
 * GET /api/v1/stats/memory?group_id=: how far memory formation has got for a group (messages
 * stored and indexed, vectors of the current model, episodes and memories), so a client that
 * imported a history can tell when all of it is searchable.
 */
export function registerGetMemoryStats(app: ZodApp, deps: { store: Store; embedder: QueryEmbedder }): void {
  const docs = everMemOsDocs.route({
    summary: 'How far memory formation got for a group: stored, indexed, episodes, memories',
    querystring: Query,
    responses: { 200: MemoryStatsAnswer },
  });
  app.get('/api/v1/stats/memory', docs, async (request) => {
    const { group_id: groupId } = request.query;
    const notFound = () => new AppError('RESOURCE_NOT_FOUND', `Group not found: ${groupId}`);
    await requireAccess(deps.store, request, groupId, 'reader', notFound);
    if ((await lastSequence(deps.store, groupId)) === undefined) throw notFound();
    const stats = await memoryStats(deps.store, groupId, deps.embedder.model, audiencesFor(request));
    return {
      status: 'ok' as const,
      message: 'Memory formation status',
      result: { group_id: groupId, embedding_model: deps.embedder.model, ...stats },
    };
  });
}
