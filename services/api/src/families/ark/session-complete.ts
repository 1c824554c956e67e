import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';
import { MAX_JSON_DEPTH, tooDeepPath, unstorableError, unstorablePath, writeOriginOf } from '@memstream/http';
import type { Writer } from '@memstream/ingest';
import { answerWrite } from './answer-write.js';
import { arkDocs } from './docs.js';
import { arkSessionState, type Store } from '@memstream/store';
import { ArkStreamChunks as StreamChunks, TOPICS } from '@memstream/schemas';
import { SessionParams, parseSessionId } from './stream.js';
import { requireAccess } from '../../shared/access.js';

/**
 * Completing a session (or its stream) ends every open stream of it, on every replica; and the
 * real ARK service's chunk relay: an agent posts token chunks, readers get them live, and they are
 * kept for readers that reconnect from the beginning.
 */
export function registerSessionWrites(app: FastifyInstance, deps: { store: Store; write: Writer }): void {
  // A completion is a write like any other: an event on the session's partition of the ARK input
  // topic, applied by the converter after the messages sent before it. What is checked here
  // (access, existence) only spares the topic events that would be refused; the converter
  // decides again on what it applies.
  const complete = async (request: FastifyRequest, reply: FastifyReply, raw: string) => {
    const sessionId = parseSessionId(raw);
    const notFound = () => new AppError('RESOURCE_NOT_FOUND', `session not found: ${sessionId}`);
    await requireAccess(deps.store, request, sessionId, 'writer', notFound);
    if (!(await arkSessionState(deps.store, sessionId)).exists) throw notFound();
    const written = await deps.write(
      writeOriginOf(request),
      TOPICS.arkMessages,
      { type: 'ark.session.completed', data: { session_id: sessionId }, source: 'ark-api' },
      true,
    );
    return answerWrite(reply, written, { session: sessionId }, (outcome) => ({
      status: String(outcome.result?.['status'] ?? 'completed'),
      session: sessionId,
    }));
  };
  const completeDocs = (summary: string) =>
    arkDocs.route({
      summary,
      params: SessionParams,
      responses: {
        200: '{"status": "completed" | "already_completed", "session": ID}; 404 for an unknown session',
        202: 'Completing outlasted REQUEST_SYNC_TIMEOUT_MS: {"status": "accepted", "session": ID, "request_id": ID}; Kafka has it',
      },
    });
  app.post<{ Params: { session_id: string } }>(
    '/session/:session_id/complete',
    completeDocs('Complete a session: ends its streams on every replica'),
    async (request, reply) => complete(request, reply, request.params.session_id),
  );
  app.post<{ Params: { session_id: string } }>(
    '/stream/:session_id/complete',
    completeDocs("Complete a session's stream (the same as completing the session)"),
    async (request, reply) => complete(request, reply, request.params.session_id),
  );

  app.addContentTypeParser(
    ['application/x-ndjson', 'application/jsonl', 'text/plain'],
    { parseAs: 'string' },
    (_req, body, done) => done(null, body),
  );
  const relayDocs = arkDocs.route({
    summary: 'Relay token chunks to the session readers, and keep them for replay',
    params: SessionParams,
    body: StreamChunks,
    consumes: ['application/x-ndjson', 'application/json'],
    responses: {
      200: '{"status": "ok", "session": ID, "chunks": N}',
      202: 'Keeping them outlasted REQUEST_SYNC_TIMEOUT_MS: {"status": "accepted", "session": ID, "chunks": N, "request_id": ID}',
    },
  });
  app.post<{ Params: { session_id: string } }>('/stream/:session_id', relayDocs, async (request, reply) => {
    const sessionId = parseSessionId(request.params.session_id);
    const chunks = parseChunks(request.body);
    // A relay is a write: the converter keeps the chunks, numbers them and sends them to the
    // readers, after what was sent to the session before; a person claims a new session there.
    const written = await deps.write(
      writeOriginOf(request),
      TOPICS.arkMessages,
      { type: 'ark.stream.chunks', data: { session_id: sessionId, chunks }, source: 'ark-api' },
      true,
    );
    return answerWrite(reply, written, { session: sessionId, chunks: chunks.length }, () => ({
      status: 'ok',
      session: sessionId,
      chunks: chunks.length,
    }));
  });
}

/** Newline-delimited chunk objects (or, sent as JSON, one chunk or an array of them). */
function parseChunks(body: unknown): Record<string, unknown>[] {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  // An empty list relays nothing, and the topic takes at least one chunk: refused here, before publishing.
  if (Array.isArray(body) && body.length === 0) throw new AppError('INVALID_PARAMETER', 'no chunks in body');
  if (Array.isArray(body) && body.every(isObject)) return body;
  if (isObject(body)) return [body];
  if (typeof body !== 'string') throw new AppError('INVALID_PARAMETER', 'body must be newline-delimited JSON chunks');
  const chunks: Record<string, unknown>[] = [];
  for (const [n, line] of body.split('\n').entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new AppError('INVALID_PARAMETER', `line ${n + 1} is not JSON`);
    }
    if (!isObject(value)) throw new AppError('INVALID_PARAMETER', `line ${n + 1} is not a JSON object`);
    // A JSON body was checked by the parser; these lines were not.
    if (tooDeepPath(value))
      throw new AppError('INVALID_PARAMETER', `line ${n + 1} nests deeper than ${MAX_JSON_DEPTH} levels`);
    const bad = unstorablePath(value);
    if (bad) throw unstorableError(bad, `line ${n + 1}`);
    chunks.push(value);
  }
  if (chunks.length === 0) throw new AppError('INVALID_PARAMETER', 'no chunks in body');
  return chunks;
}
