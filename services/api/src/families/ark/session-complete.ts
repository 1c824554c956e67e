import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';
import { writeOriginOf, type ZodApp } from '@memstream/http';
import { outcomeError, type WriteResult, type Writer } from '@memstream/ingest';
import { arkDocs } from './docs.js';
import { arkSessionState, type Store } from '@memstream/store';
import {
  ArkCompleted,
  ArkCompleting,
  ArkRelayed,
  ArkRelaying,
  ArkStreamChunks as StreamChunks,
  TOPICS,
} from '@memstream/schemas';
import { SessionParams, parseSessionId } from './stream.js';
import { requireAccess } from '../../shared/access.js';
import { OpenRelays, relayLines } from './ndjson-relay.js';
import { replyOutcomeOrAcceptedSubject } from './reply-outcome-or-accepted-subject.js';

/** How long a completion of a stream not (yet) stored waits for it: it may be on its way from another replica. */
const COMPLETION_WAIT_MS = 3_000;

/**
 * Completing a session (or its stream) ends every open stream of it, on every replica; and the
 * real ARK service's chunk relay: an agent posts token chunks, readers get them live, and they are
 * kept for readers that reconnect from the beginning.
 */
export function registerSessionWrites(app: ZodApp, deps: { store: Store; write: Writer }): void {
  const relays = new OpenRelays();
  // A completion is a write like any other: an event on the session's partition of the ARK input
  // topic, applied by the converter after the messages sent before it. What is checked here
  // (access, existence) only spares the topic events that would be refused; the converter
  // decides again on what it applies.
  const complete = async (request: FastifyRequest, reply: FastifyReply, raw: string) => {
    const sessionId = parseSessionId(raw);
    const notFound = () => new AppError('RESOURCE_NOT_FOUND', `session not found: ${sessionId}`);
    // ARK's controller closes its relay and completes at once: the relay's last lines may still be
    // on their way here, or its writes on their way to the store. Its completion goes after them.
    const wroteHere = await relays.settle(sessionId);
    if (!wroteHere && !(await appearsSoon(deps.store, sessionId))) throw notFound();
    await requireAccess(deps.store, request, sessionId, 'writer', notFound);
    if (!wroteHere && !(await arkSessionState(deps.store, sessionId)).exists) throw notFound();
    const written = await deps.write(
      writeOriginOf(request),
      TOPICS.arkMessages,
      { type: 'ark.session.completed', data: { session_id: sessionId }, source: 'ark-api' },
      true,
    );
    // ARK's reference service names the id `query`; ours said `session` first: both are sent.
    return replyOutcomeOrAcceptedSubject(reply, written, { session: sessionId, query: sessionId }, (outcome) => ({
      status: String(outcome.result?.['status'] ?? 'completed'),
      session: sessionId,
      query: sessionId,
    }));
  };
  const completeDocs = (summary: string) =>
    arkDocs.route({
      summary,
      params: SessionParams,
      // ARK words a bad session id its own way (see parseSessionId)
      parsedByHandler: ['params'],
      responses: {
        200: ArkCompleted.meta({
          description:
            'Completed now, or before; 404 for a session unknown after its open relays closed and a short wait (3 s)',
        }),
        202: ArkCompleting.meta({ description: 'Completing outlasted REQUEST_SYNC_TIMEOUT_MS; Kafka has it' }),
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

  // Newline-delimited bodies are read as they arrive (see relayLines), never whole.
  app.addContentTypeParser(['application/x-ndjson', 'application/jsonl', 'text/plain'], (_req, payload, done) =>
    done(null, payload),
  );
  const relayDocs = arkDocs.route({
    summary: 'Relay token chunks to the session readers, and keep them for replay',
    description:
      "Newline-delimited chunks are relayed line by line as they arrive, so one POST may stay open for a whole query (ARK's controller holds it so); the answer comes when the body ends. A bad line ends the relay (the lines before it are relayed) with 400 naming it. A completion posted while a relay of the same stream is open on this process waits for it, so it takes effect after every chunk that relay sent.",
    params: SessionParams,
    body: StreamChunks,
    // The body is read line by line as it arrives (never whole), so it is checked as it comes.
    parsedByHandler: ['params', 'body'],
    consumes: ['application/x-ndjson', 'application/jsonl', 'text/plain', 'application/json'],
    responses: {
      200: ArkRelayed.meta({ description: 'Every chunk stored' }),
      202: ArkRelaying.meta({ description: 'Keeping them outlasted REQUEST_SYNC_TIMEOUT_MS; Kafka has them' }),
    },
  });
  // A relay stays open for a whole query: it has an idle timeout of its own and no total deadline.
  const relayRoute = { ...relayDocs, config: { ...relayDocs.config, longLivedBody: true } };
  app.post<{ Params: { session_id: string } }>('/stream/:session_id', relayRoute, async (request, reply) => {
    const sessionId = parseSessionId(request.params.session_id);
    // A relay is a write: the converter keeps the chunks, numbers them and sends them to the
    // readers, after what was sent to the session before; a person claims a new session there.
    const send = (chunks: Record<string, unknown>[]) =>
      deps.write(
        writeOriginOf(request),
        TOPICS.arkMessages,
        { type: 'ark.stream.chunks', data: { session_id: sessionId, chunks }, source: 'ark-api' },
        true,
      );
    const stored = (written: WriteResult) => {
      if (written.kind === 'done' && written.outcome.status === 'failed') throw outcomeError(written.outcome);
      relays.markWritten(sessionId);
      return written;
    };
    if (request.body instanceof Readable) {
      const body = request.body;
      let accepted = false;
      const relay = relayLines(body, async (chunks) => {
        if (stored(await send(chunks)).kind === 'accepted') accepted = true;
      });
      const { chunks } = await relays.track(sessionId, relay).catch((err: unknown) => {
        body.resume(); // the rest of the body is drained, so the refusal reaches the writer
        throw err;
      });
      if (accepted) return reply.status(202).send({ status: 'accepted', session: sessionId, chunks });
      return { status: 'ok', session: sessionId, chunks };
    }
    const chunks = parseChunks(request.body);
    const subject = { session: sessionId, chunks: chunks.length };
    return replyOutcomeOrAcceptedSubject(reply, stored(await send(chunks)), subject, () => ({
      status: 'ok',
      ...subject,
    }));
  });
}

/** A stream another replica is relaying exists once its first chunks are stored: a completion gives it a moment. */
async function appearsSoon(store: Store, sessionId: string): Promise<boolean> {
  const deadline = Date.now() + COMPLETION_WAIT_MS;
  for (;;) {
    if ((await arkSessionState(store, sessionId)).exists) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Chunks sent as JSON: one chunk object or an array of them. */
function parseChunks(body: unknown): Record<string, unknown>[] {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  // An empty list relays nothing, and the topic takes at least one chunk: refused here, before publishing.
  if (Array.isArray(body) && body.length === 0) throw new AppError('INVALID_PARAMETER', 'no chunks in body');
  if (Array.isArray(body) && body.every(isObject)) return body;
  if (isObject(body)) return [body];
  throw new AppError('INVALID_PARAMETER', 'body must be newline-delimited JSON chunks');
}
