import type { Halves } from '../../shared/halves.js';
import { AppError } from '@memstream/errors';
import { principalOf, serverSentEvent } from '@memstream/http';
import { createEvictionJob, findEvictionJob, type Store } from '@memstream/store';
import { adminDocs as docs } from './docs.js';
import { actorOf, auditMore, requireRole, writeAudit } from './audit.js';
import { awaitEviction } from './eviction-wait.js';
import { EvictionJobBody, EvictionJobParams, EvictionStreamData, EvictQuery, EvictRequest } from '@memstream/schemas';
import { cutoffOf } from './retention-cutoff.js';
import { evictionJobView } from './views.js';

/**
 * `POST /v1/admin/evict`: hard-deletes the conversation groups soft-deleted longer ago than the
 * retention period, with everything made from them in every family. The job is a row, which the
 * governance worker runs (the API runs no jobs); this process only waits on it.
 * Answers 204 when done, an SSE stream of `{"progress": N}` with `Accept: text/event-stream`, or
 * 202 with the job at once with `?async=true`.
 */
export function registerEvictRoutes(
  { writes, reads }: Halves,
  deps: { store: Store; wakeEviction?: (() => void) | undefined },
): void {
  writes?.post(
    '/v1/admin/evict',
    docs.route({
      summary: 'Hard-delete what was soft-deleted longer ago than the retention period (admin)',
      description:
        'retentionPeriod is an ISO 8601 duration (P90D, P1Y, PT24H). Answers 204 when done; with Accept: text/event-stream, 200 and a stream of data: {"progress": N} events ending at 100 (event: error on failure); with ?async=true, 202 and the job.',
      querystring: EvictQuery,
      body: EvictRequest,
      responses: {
        200: {
          description:
            'With Accept: text/event-stream: `data: {"progress": N}` events, 0 to 100; `event: error` with {error} when the eviction failed (the job is retried)',
          content: { 'text/event-stream': serverSentEvent({ names: ['error'], data: EvictionStreamData }) },
        },
        202: EvictionJobBody,
        204: 'Eviction completed',
      },
    }),
    async (request, reply) => {
      requireRole(request, 'admin', 'evict');
      const query = request.query;
      const body = request.body;
      const job = await createEvictionJob(deps.store, {
        retentionPeriod: body.retentionPeriod,
        cutoff: cutoffOf(body.retentionPeriod, new Date()),
        resourceTypes: body.resourceTypes,
        requestedBy: Object.values(actorOf(principalOf(request))).join(':'),
        justification: body.justification,
      });
      auditMore(request, {
        target: job.id,
        justification: body.justification,
        params: {
          retentionPeriod: body.retentionPeriod,
          resourceTypes: body.resourceTypes.join(','),
          async: query.async,
        },
      });
      if (query.async) {
        deps.wakeEviction?.();
        return reply.code(202).send(evictionJobView(job));
      }
      if (!String(request.headers.accept ?? '').includes('text/event-stream')) {
        const ended = await awaitEviction(deps.store, job.id, { wake: deps.wakeEviction });
        if (ended?.status !== 'completed')
          throw new AppError('SYSTEM_ERROR', 'The eviction did not complete; it will be retried');
        auditMore(request, { counts: { ...ended.counts } });
        return reply.code(204).send();
      }
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      });
      const send = (frame: string) => !res.destroyed && res.write(frame);
      let last = -1;
      try {
        // The job goes on if the client leaves: it is a row, and it completes either way.
        const ended = await awaitEviction(deps.store, job.id, {
          wake: deps.wakeEviction,
          onProgress: (progress) => {
            if (progress === last) return;
            last = progress;
            send(`data: ${JSON.stringify({ progress })}\n\n`);
          },
        });
        if (ended?.status !== 'completed') throw new Error('not completed');
        auditMore(request, { counts: { ...ended.counts } });
        await writeAudit(deps.store, request, 200);
      } catch (err) {
        request.log.error({ err, evictionJobId: job.id }, 'eviction failed');
        send(`event: error\ndata: ${JSON.stringify({ error: 'The eviction failed; it will be retried' })}\n\n`);
        await writeAudit(deps.store, request, 500).catch(() => undefined);
      }
      res.end();
    },
  );

  reads?.get(
    '/v1/admin/evict/jobs/:jobId',
    docs.route({
      summary: 'Where an eviction job is (admin)',
      params: EvictionJobParams,
      responses: { 200: EvictionJobBody },
    }),
    async (request) => {
      requireRole(request, 'admin', 'getEvictionJob');
      const { jobId } = request.params;
      auditMore(request, { target: jobId });
      const job = await findEvictionJob(deps.store, jobId);
      if (!job)
        throw new AppError('RESOURCE_NOT_FOUND', `No eviction job ${jobId}`, {
          details: { resource: 'eviction_job', id: jobId },
        });
      return evictionJobView(job);
    },
  );
}
