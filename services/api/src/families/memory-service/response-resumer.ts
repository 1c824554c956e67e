import { AppError } from '@memstream/errors';
import type { ResponseRecorder, ResponseRefusal, ResponseStreams } from '@memstream/fanout';
import { holdStream, principalOf, serverSentEvent } from '@memstream/http';
import type { FastifyRequest } from 'fastify';
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
      responses: {
        200: ResponseStateBody,
        413: 'The response would pass its bytes or tokens (RESPONSE_MAX_BYTES, RESPONSE_MAX_TOKENS); nothing of the call is kept',
        429: 'The caller has as many responses in progress as it may, or the server holds as many as it may; nothing of the call is kept',
      },
      description: '409 once the response was cancelled.',
    }),
    async (request) => {
      const responses = resumer();
      const id = idOf(request);
      const body = request.body;
      await h.ops.require(request, id, 'writer', 'Recording a response');
      const recorded = await responses.record(id, body.tokens, body.done, recorderOf(request));
      if (recorded === 'cancelled') throw new AppError('CONFLICT', 'The response was cancelled');
      if (recorded !== 'recorded') throw refusalError(recorded);
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

/** Whose responses in progress a record call counts against: the same caller on every replica. */
function recorderOf(request: FastifyRequest): ResponseRecorder {
  const principal = principalOf(request);
  if (principal.kind === 'agent') return { key: `agent:${principal.clientId}`, agent: true };
  return { key: principal.kind === 'user' ? `person:${principal.userId}` : 'local', agent: false };
}

function refusalError(r: ResponseRefusal): AppError {
  const details = { bound: r.refused, limit: r.limit };
  switch (r.refused) {
    case 'bytes':
      return new AppError('PAYLOAD_TOO_LARGE', `A response holds at most ${r.limit} bytes of tokens`, { details });
    case 'tokens':
      return new AppError('PAYLOAD_TOO_LARGE', `A response holds at most ${r.limit} tokens`, { details });
    case 'in_progress':
      return new AppError(
        'TOO_MANY_REQUESTS',
        `You have ${r.limit} responses in progress: end or cancel one before starting another`,
        { details },
      );
    case 'busy':
      return new AppError('TOO_MANY_REQUESTS', 'The server holds as many responses as it may: try again later', {
        details,
      });
  }
}
