import { AppError } from '@memstream/errors';
import type { ResponseStreams } from '@memstream/fanout';
import { holdStream, serverSentEvent } from '@memstream/http';
import { memoryServiceDocs as docs } from './docs.js';
import {
  CancelledBody,
  ConversationIdParams,
  RecordResponseRequest,
  ResponseEventData,
  ResponseStateBody,
} from '@memstream/schemas';
import { SseWriter } from '../../shared/sse.js';
import type { MemoryServiceHandlers } from './handlers.js';
import { personOf } from '../../shared/access.js';
import type { StreamAccess } from '../../shared/stream-access.js';
import type { Halves } from '../../shared/halves.js';

/**
 * The response resumer over HTTP. A writer (the agent producing the answer) records tokens; any
 * reader replays the response from its start and follows it live as Server-Sent Events (`token`,
 * then `done` or `cancelled`), from any replica; a writer may cancel it, and the recorder learns
 * so from its next call (409). With the resumer disabled every call answers 409, as the
 * memory-service does.
 */
export function registerResponseResumer(
  { writes, reads }: Halves,
  h: MemoryServiceHandlers,
  deps: { responses: ResponseStreams | undefined; heartbeatMs: number; access: StreamAccess },
): void {
  const resumer = (): ResponseStreams => {
    if (!deps.responses) throw new AppError('CONFLICT', 'The response resumer is disabled (RESPONSE_RESUMER=none)');
    return deps.responses;
  };
  // A shutdown ends the open streams, or the server would wait for their readers to leave.
  const following = new Set<AbortController>();
  reads?.addHook('preClose', async () => {
    for (const stop of following) stop.abort();
  });
  const idOf = (request: { params: { conversationId: string } }) => request.params.conversationId;

  writes?.post(
    '/v1/conversations/:conversationId/response',
    docs.route({
      summary: 'Record tokens of the response in progress (writers)',
      params: ConversationIdParams,
      body: RecordResponseRequest,
      responses: { 200: ResponseStateBody },
      description: '409 once the response was cancelled.',
    }),
    async (request) => {
      const responses = resumer();
      const id = idOf(request);
      const body = request.body;
      await h.ops.require(request, id, 'writer', 'Recording a response');
      if ((await responses.record(id, body.tokens, body.done)) === 'cancelled')
        throw new AppError('CONFLICT', 'The response was cancelled');
      return { state: await responses.state(id) };
    },
  );

  writes?.post(
    '/v1/conversations/:conversationId/cancel-response',
    docs.route({
      summary: 'Cancel the response in progress (writers)',
      params: ConversationIdParams,
      responses: { 200: CancelledBody },
      description: '404 when no response is in progress.',
    }),
    async (request) => {
      const responses = resumer();
      const id = idOf(request);
      await h.ops.require(request, id, 'writer', 'Cancelling a response');
      if (!(await responses.cancel(id)))
        throw new AppError('RESOURCE_NOT_FOUND', `No response in progress: ${id}`, {
          details: { resource: 'response', id },
        });
      return { cancelled: true };
    },
  );

  reads?.get(
    '/v1/conversations/:conversationId/response',
    docs.route({
      summary: 'The response from its start, then live, as Server-Sent Events (readers)',
      params: ConversationIdParams,
      responses: {
        200: {
          description:
            'Server-Sent Events: `token` events ({text}) from the start, then `done` or `cancelled` ({}); `error` ({error, code}) when your access ended. Comment lines keep it open.',
          content: {
            'text/event-stream': serverSentEvent({
              names: ['token', 'done', 'cancelled', 'error'],
              data: ResponseEventData,
            }),
          },
        },
      },
    }),
    async (request, reply) => {
      const responses = resumer();
      const id = idOf(request);
      await h.ops.require(request, id, 'reader', 'Reading');
      if ((await responses.state(id)) === 'none')
        throw new AppError('RESOURCE_NOT_FOUND', `No response: ${id}`, { details: { resource: 'response', id } });
      holdStream(request, reply);
      // Allowed when it opened; a person's stream ends, with an error event, when they lose access.
      const person = personOf(request);
      const stop = new AbortController();
      let revoked = false;
      const stopWatching =
        person === undefined
          ? undefined
          : await deps.access.watch(id, person, () => {
              revoked = true;
              stop.abort();
            });
      reply.hijack();
      const sse = new SseWriter(reply.raw);
      following.add(stop);
      reply.raw.on('close', () => stop.abort());
      const heartbeat = setInterval(() => sse.heartbeat(), deps.heartbeatMs);
      try {
        await responses.follow(
          id,
          (event) => sse.event(event.type, event.type === 'token' ? { text: event.text } : {}),
          stop.signal,
        );
      } catch (err) {
        request.log.warn({ err }, 'response stream failed');
      } finally {
        stopWatching?.();
        clearInterval(heartbeat);
        following.delete(stop);
        if (revoked) sse.event('error', { error: 'Your access to this conversation ended', code: 'forbidden' });
        sse.end();
      }
    },
  );
}
