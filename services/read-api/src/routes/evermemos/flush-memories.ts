import type { FastifyInstance } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '@memstream/errors';
import { closeSpan, type BoundaryRules } from '@memstream/episodes';
import { parseOrThrow } from '@memstream/http';
import { everMemOsDocs } from '@memstream/api-families';
import { lastSequence, listEpisodesByIds, type Episode, type Store } from '@memstream/store';
import { FlushMemoriesRequest as Body } from '@memstream/schemas';
import { requireAccess } from '../../access.js';

const POLL_MS = 100;

/**
 * POST /api/v1/memories/flush: closes the group's open episode now (what is stored by then;
 * messages still in flight join the next one). The extractor takes it on its next sweep; the call
 * waits for the extraction up to the sync timeout, like a write, and returns the memories'
 * ids, or answers at once with `sync_mode: false`.
 */
export function registerFlushMemories(app: FastifyInstance, deps: { store: Store; rules: BoundaryRules; syncTimeoutMs: number }): void {
  const docs = everMemOsDocs.route({
    summary: "Close a group's open episode now and wait for its memories",
    body: Body,
    responses: { 200: 'result.status_info (extracted, extracting, nothing_pending) and result.episodes' },
  });
  app.post('/api/v1/memories/flush', docs, async (request) => {
    const body = parseOrThrow(Body, request.body);
    const notFound = () => new AppError('RESOURCE_NOT_FOUND', `Group not found: ${body.group_id}`);
    await requireAccess(deps.store, request, body.group_id, 'writer', notFound);
    if ((await lastSequence(deps.store, body.group_id)) === undefined) throw notFound();
    const { closed } = await closeSpan(deps.store, body.group_id, deps.rules, 'flush');
    let episodes: Episode[] = closed;
    if (body.sync_mode && closed.length > 0) {
      const deadline = Date.now() + deps.syncTimeoutMs;
      while (episodes.some((e) => e.status !== 'extracted') && Date.now() < deadline) {
        await sleep(POLL_MS);
        episodes = await listEpisodesByIds(deps.store, closed.map((e) => e.id));
      }
    }
    const extracted = episodes.length > 0 && episodes.every((e) => e.status === 'extracted');
    return {
      status: 'ok',
      message: closed.length === 0 ? 'Nothing to flush' : `Closed ${closed.length} episodes`,
      result: {
        group_id: body.group_id,
        status_info: closed.length === 0 ? 'nothing_pending' : extracted ? 'extracted' : 'extracting',
        episodes: episodes.map((e) => ({
          episode_id: e.id,
          start_sequence: e.start_seq,
          end_sequence: e.end_seq,
          message_count: e.message_ids.length,
          close_reason: e.close_reason,
          status: e.status,
        })),
      },
    };
  });
}
