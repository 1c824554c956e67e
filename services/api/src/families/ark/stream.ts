import type { FastifyReply, FastifyRequest } from 'fastify';
import { holdStream, serverSentEvent, type ZodApp } from '@memstream/http';
import { mayReadAudience } from '@memstream/auth';
import { AppError } from '@memstream/errors';
import type { Fanout } from '@memstream/fanout';
import { arkDocs } from './docs.js';
import { arkRecordsAfter, arkSessionState, listArkRecords, listStreamChunks, type Store } from '@memstream/store';
import {
  ArkSessionId,
  ArkSessionParams,
  ARK_STREAM_MARKERS,
  ArkStreamEventData,
  ArkStreamQuery as Query,
  LiveEvent,
  liveChannelOf,
  textOf,
} from '@memstream/schemas';
import { parseGoDuration } from './go-duration.js';
import {
  ArkStreamErrorBody,
  dialectOf,
  framesOf,
  isErrorChunk,
  sendReferenceError,
  waitForQueryMs,
  type ArkDialect,
} from './ark-dialect.js';
import { SseWriter } from '../../shared/sse.js';
import { audiencesFor, mayAccess, personOf } from '../../shared/access.js';
import type { StreamAccess } from '../../shared/stream-access.js';

const MAX_WAIT_MS = 300_000;

/** The path of every per-session ARK route. */
export const SessionParams = ArkSessionParams;

export interface StreamDeps {
  readonly store: Store;
  readonly fanout: Fanout;
  readonly heartbeatMs: number;
  readonly access: StreamAccess;
}

/**
 * GET /stream/{session_id}: the session as Server-Sent Events. The live channel is subscribed
 * before anything is read, and events that arrive meanwhile are buffered, so nothing published
 * after the request arrived can be missed (and nothing written after the headers arrive is
 * taken for history); replayed and live messages are told apart by sequence
 * number, so nothing is sent twice. Works on any replica: live events come through the fan-out
 * (Redis across processes).
 */
export function registerStream(app: ZodApp, deps: StreamDeps): void {
  const open = new Set<SseWriter>();
  // Open streams would hold the server's close until the shutdown deadline: end them first.
  app.addHook('preClose', async () => {
    for (const sse of open) sse.end();
  });

  const docs = arkDocs.route({
    summary: 'The session as Server-Sent Events',
    description:
      "Two framings, chosen by what the reader sends. With `wait-for-query` (ark-api's parameter), ARK's reference service's: one `data:` line of JSON per chat.completion.chunk, `data: [DONE]` at completion, errors as {error: {message, type, code}} (a refusal with its HTTP status, a timeout or failure as a frame then [DONE]); the stream is awaited if it does not exist yet. Without it, spec 000's: `event: message` frames, [LIVE_MODE] after a replay, and a final chunk, [STREAM_END] and [DONE] at completion. In both, a relayed chunk carrying `error` ends the stream with [DONE].",
    params: SessionParams,
    querystring: Query,
    // A refusal of the reference dialect comes in OpenAI's error body, not the family's: the
    // handler parses both parts and answers in the dialect the reader speaks.
    parsedByHandler: ['params', 'querystring'],
    responses: {
      200: {
        description:
          'Server-Sent Events in the framing the reader chose (see above), each a chunk or an error as JSON, or a marker sent bare; comment lines keep it open',
        content: {
          'text/event-stream': serverSentEvent({
            names: ['message', 'error'],
            data: ArkStreamEventData,
            markers: ARK_STREAM_MARKERS,
          }),
        },
      },
    },
    alternateError: {
      body: ArkStreamErrorBody,
      when: 'with wait-for-query, the OpenAI error object ark-api parses: {"error": {"message", "type", "code"}}',
    },
  });
  app.get<{ Params: { session_id: string } }>('/stream/:session_id', docs, async (request, reply) => {
    const dialect = dialectOf(request.query);
    if (dialect === 'spec') return openStream(request, reply, dialect);
    // ark-api reads a refusal as {"error": {"message", "type", "code"}}, not our family's shape.
    try {
      return await openStream(request, reply, dialect);
    } catch (err) {
      if (reply.sent) throw err;
      return sendReferenceError(reply, err);
    }
  });

  async function openStream(
    request: FastifyRequest<{ Params: { session_id: string } }>,
    reply: FastifyReply,
    dialect: ArkDialect,
  ): Promise<void> {
    const sessionId = parseSessionId(request.params.session_id);
    const query = Query.safeParse(request.query);
    if (!query.success)
      throw new AppError(
        'INVALID_PARAMETER',
        `invalid query: ${query.error.issues[0]!.path.join('.')} ${query.error.issues[0]!.message}`,
      );
    const fromBeginning = query.data['from-beginning'] === 'true';
    const waitFor = query.data['wait-for-query'];
    // ARK's service subscribes to a query's stream before it exists, and waits for it.
    const waitForSession = waitFor !== undefined || query.data['wait-for-session'] === 'true';
    const timeoutMs = waitFor !== undefined ? waitForQueryMs(waitFor) : parseGoDuration(query.data.timeout);
    if (timeoutMs === undefined)
      throw new AppError(
        'INVALID_PARAMETER',
        `invalid timeout ${query.data.timeout}: use a duration such as 500ms, 30s or 5m`,
      );

    const initial = await arkSessionState(deps.store, sessionId);
    // To a person, a session they are not a member of does not exist; one that appears while they
    // wait must be theirs (or shared with them) before anything of it is sent.
    const mayRead = () => mayAccess(deps.store, request, sessionId);
    const audiences = audiencesFor(request);
    if ((!initial.exists && !waitForSession) || (initial.exists && !(await mayRead()))) {
      throw new AppError('RESOURCE_NOT_FOUND', `session not found: ${sessionId}`);
    }

    const buffered: LiveEvent[] = [];
    let onLive: ((event: LiveEvent) => void) | undefined;
    let woken: (() => void) | undefined;
    const unsubscribe = await deps.fanout.subscribe(liveChannelOf(sessionId), (message) => {
      const parsed = LiveEvent.safeParse(JSON.parse(message));
      if (!parsed.success) return;
      woken?.();
      if (onLive) onLive(parsed.data);
      else buffered.push(parsed.data);
    });

    // Where a live reader's stream starts is read before its headers go out: a client that writes
    // once it sees them writes past this point, so its messages are live, never taken for history
    // (read after the headers, a message committed in between was skipped as already sent).
    const readStart = async () => ({
      state: await arkSessionState(deps.store, sessionId),
      chunks: await listStreamChunks(deps.store, sessionId),
    });
    let start: Awaited<ReturnType<typeof readStart>> | undefined;
    let sse: SseWriter;
    try {
      if (initial.exists) start = await readStart();
      sse = startSse(reply);
    } catch (err) {
      await unsubscribe().catch(() => undefined);
      throw err;
    }

    open.add(sse);
    const frames = framesOf(dialect, sse);
    // Set once the stream is live: reads what was stored past the last event sent (see below).
    let catchUp: (() => Promise<void>) | undefined;
    const heartbeat = setInterval(() => {
      sse.heartbeat();
      void catchUp?.(); // never rejects: inOrder logs a failure
    }, deps.heartbeatMs);
    let finished = false;
    let stopWatching: (() => void) | undefined;
    const finish = () => {
      if (finished) return;
      finished = true;
      stopWatching?.();
      clearInterval(heartbeat);
      open.delete(sse);
      sse.end();
      void unsubscribe().catch(() => undefined);
    };
    reply.raw.on('close', finish);

    try {
      const appeared = async () =>
        (await waitForExistence(
          deps.store,
          sessionId,
          Math.min(timeoutMs, MAX_WAIT_MS),
          (wake) => (woken = wake),
          () => sse.closed,
        )) && (await mayRead());
      if (!initial.exists && !(await appeared())) {
        frames.error('timeout', `session ${sessionId} not found within ${query.data.timeout}`);
        return finish();
      }
      // Allowed when it opened (or when the session appeared); a person's stream ends when they lose access.
      const person = personOf(request);
      if (person !== undefined) {
        const stop = await deps.access.watch(sessionId, person, () => {
          if (finished) return;
          frames.error('access', `access to session ${sessionId} ended`);
          finish();
        });
        if (finished)
          stop(); // the reader left while the watch was set up
        else stopWatching = stop;
      }
      // A session that appeared while the reader waited is sent whole, so read it only now.
      const { state, chunks } = start ?? (await readStart());
      let lastSeq = state.lastSeq;
      let lastChunk = 0;
      // A reader that waited for the session wants its first messages: all of it is new to them.
      if (fromBeginning || !initial.exists) {
        const { records } = await listArkRecords(deps.store, { sessionId, limit: undefined, offset: 0, audiences });
        for (const r of records) frames.chunk(chunkOf(sessionId, r.message, r.created_at.toISOString()));
        lastSeq = Math.max(lastSeq, records.at(-1)?.seq ?? -1);
        for (const c of chunks) {
          frames.chunk(c.chunk);
          if (isErrorChunk(c.chunk)) return endAfterError();
        }
        if (fromBeginning) frames.live();
      }
      lastChunk = chunks.at(-1)?.chunk_seq ?? 0;

      const deliver = (event: LiveEvent) => {
        if (finished) return;
        if (event.type === 'messages') {
          for (const m of event.messages) {
            if (m.seq <= lastSeq) continue; // already replayed
            lastSeq = m.seq;
            // what the reader may not see (an agent's memory, a message for agents) is passed over
            if (!mayReadAudience(audiences, m.audience)) continue;
            frames.chunk(chunkOf(sessionId, m.message, m.created_at));
          }
        } else if (event.type === 'chunk') {
          if (event.chunk_seq <= lastChunk) return;
          lastChunk = event.chunk_seq;
          frames.chunk(event.chunk);
          if (isErrorChunk(event.chunk)) endAfterError();
        } else {
          frames.complete(finalChunk(sessionId));
          finish();
        }
      };
      if (state.completed) return deliver({ type: 'complete' });
      // What was stored after the last message sent, read from the store (deliver() drops what the
      // live channel brought already). What the reader may not see is passed over for good.
      const readStoredMessages = async () => {
        const now = await arkSessionState(deps.store, sessionId);
        if (now.lastSeq > lastSeq) {
          const records = await arkRecordsAfter(deps.store, sessionId, lastSeq, audiences);
          deliver({
            type: 'messages',
            messages: records.map((r) => ({
              seq: r.seq,
              created_at: r.created_at.toISOString(),
              query_id: r.query_id,
              message: r.message,
            })),
          });
          lastSeq = Math.max(lastSeq, now.lastSeq);
        }
        return now;
      };
      // Live events and the heartbeat's reads are handled one at a time, in arrival order: a live
      // message sent while a read was under way would otherwise move lastSeq past what the read
      // had still to deliver.
      let handled: Promise<void> = Promise.resolve();
      const inOrder = (work: () => Promise<void> | void) => {
        handled = handled.then(work).catch((err: unknown) => {
          request.log.warn({ err }, 'stream catch-up failed; the next heartbeat tries again');
        });
        return handled;
      };
      // The live channel can lose events: Redis restarting, a notice its publisher could not send.
      // A live message numbered past the next one may follow a lost one, so the store is read from
      // the last one sent first (a gap a deletion left reads nothing); and each heartbeat reads
      // what was stored since, so a loss at the end of a burst lasts one heartbeat at most.
      // Chunks are numbered across sessions, so a gap shows only in the number of the session's
      // chunk before this one, which each live chunk names: past the last one sent, one was lost.
      const readStoredChunks = async () => {
        for (const c of await listStreamChunks(deps.store, sessionId, lastChunk))
          deliver({ type: 'chunk', chunk_seq: c.chunk_seq, chunk: c.chunk });
      };
      const onLiveEvent = (event: LiveEvent) =>
        void inOrder(async () => {
          if (finished) return;
          if (event.type === 'messages') {
            const next = event.messages.find((m) => m.seq > lastSeq);
            if (next !== undefined && next.seq > lastSeq + 1) await readStoredMessages();
          } else if (event.type === 'chunk' && event.prev_chunk_seq != null && event.prev_chunk_seq > lastChunk) {
            await readStoredChunks();
          }
          deliver(event);
        });
      for (const event of buffered.splice(0)) onLiveEvent(event);
      onLive = onLiveEvent;
      catchUp = () =>
        inOrder(async () => {
          if (finished) return;
          const now = await readStoredMessages();
          await readStoredChunks();
          if (now.completed) deliver({ type: 'complete' });
        });
    } catch (err) {
      request.log.error({ err }, 'stream failed');
      frames.error('failed', 'stream failed');
      finish();
    }

    // An error chunk is the writer's last word: the stream ends with [DONE], as ARK's service ends it.
    function endAfterError(): void {
      sse.marker('[DONE]');
      finish();
    }
  }
}

export function parseSessionId(value: string): string {
  const parsed = ArkSessionId.safeParse(value);
  if (!parsed.success)
    throw new AppError('INVALID_PARAMETER', `invalid session_id: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

function startSse(reply: FastifyReply): SseWriter {
  holdStream(reply.request, reply); // before the first byte, so a refusal is a 429 in ARK's shape
  reply.hijack(); // the response is ours from here: fastify neither serializes nor ends it
  void reply.header('x-request-id', reply.request.id);
  for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) reply.raw.setHeader(k, v as string);
  return new SseWriter(reply.raw);
}

/** Waits until the session exists: woken by its first live event, or found by a slow poll. */
async function waitForExistence(
  store: Store,
  sessionId: string,
  timeoutMs: number,
  onWake: (wake: () => void) => void,
  gone: () => boolean,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !gone()) {
    if ((await arkSessionState(store, sessionId)).exists) return true;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(500, Math.max(0, deadline - Date.now())));
      onWake(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  return !gone() && (await arkSessionState(store, sessionId)).exists;
}

/** A stored message as the OpenAI streaming chunk ARK readers expect. */
export function chunkOf(sessionId: string, message: Record<string, unknown>, createdAt: string) {
  const delta: Record<string, unknown> = {
    role: message['role'],
    content:
      typeof message['content'] === 'string' || message['content'] === null
        ? message['content']
        : textOf(message as { role: string }),
  };
  if (message['tool_calls'] !== undefined) delta['tool_calls'] = message['tool_calls'];
  return {
    id: sessionId,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.parse(createdAt) / 1000),
    model: 'memory-service',
    choices: [{ index: 0, delta, finish_reason: null }],
  };
}

function finalChunk(sessionId: string) {
  return {
    id: sessionId,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: 'memory-service',
    choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
  };
}
