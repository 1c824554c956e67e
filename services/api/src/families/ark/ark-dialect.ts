import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { AppError } from '@memstream/errors';
import { parseGoDuration } from './go-duration.js';
import type { SseWriter } from '../../shared/sse.js';

/**
 * The two framings of an ARK stream. Spec 000 describes `event: message` frames with
 * `[LIVE_MODE]` and `[STREAM_END]` markers; no ARK revision sends them, and ark-api forwards every
 * line to the OpenAI SDK, which reads each `data:` line as JSON or `[DONE]` and fails on anything
 * else. A reader chooses by what it sends: `wait-for-query` (ark-api's parameter) selects ARK's
 * reference framing; without it a reader gets spec 000's.
 */
export type ArkDialect = 'reference' | 'spec';

export function dialectOf(query: unknown): ArkDialect {
  return query !== null && typeof query === 'object' && 'wait-for-query' in query ? 'reference' : 'spec';
}

const MIN_WAIT_MS = 1_000;
const MAX_WAIT_MS = 300_000;

/** ark-api sends whole seconds (the query's timeout); a Go duration is taken too. 1 s to 5 min. */
export function waitForQueryMs(value: string): number {
  const ms = /^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : (parseGoDuration(value) ?? 30_000);
  return Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, ms));
}

/** The body of a refused stream in ARK's reference dialect. */
export const ArkStreamErrorBody = z.object({
  error: z.object({ message: z.string(), type: z.string(), code: z.string() }),
});

/** The OpenAI error object ark-api parses from a failed stream and the SDK raises from a frame. */
export function arkErrorObject(message: string, type: string, code: string) {
  return { error: { message, type, code } };
}

const TYPE_OF_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'invalid_request_error',
};

/** A refusal before the stream starts, as ark-api expects it: `{"error": {"message", "type", "code"}}`. */
export function sendReferenceError(reply: FastifyReply, err: unknown): FastifyReply {
  const e = err instanceof AppError ? err : new AppError('SYSTEM_ERROR', 'stream failed');
  const message = e.statusCode >= 500 && e.statusCode !== 503 ? 'stream failed' : e.message;
  const type = TYPE_OF_STATUS[e.statusCode] ?? 'server_error';
  return reply.code(e.statusCode).send(arkErrorObject(message, type, e.code.toLowerCase()));
}

/** What a stream sends, in the reader's dialect. */
export interface StreamFrames {
  /** One chat.completion.chunk (a stored message as a chunk, or a relayed chunk as it was posted). */
  chunk(chunk: unknown): void;
  /** The replay is over; what follows is live. */
  live(): void;
  /** The stream was completed. */
  complete(finalChunk: unknown): void;
  /** The stream ends in error: waited in vain, access ended, or it failed. */
  error(kind: 'timeout' | 'access' | 'failed', message: string): void;
}

export function framesOf(dialect: ArkDialect, sse: SseWriter): StreamFrames {
  if (dialect === 'reference')
    return {
      chunk: (chunk) => sse.data(chunk),
      live: () => undefined,
      complete: () => sse.marker('[DONE]'),
      error: (kind, message) => {
        sse.data(
          kind === 'timeout'
            ? arkErrorObject('Request timeout waiting for streaming query response', 'timeout_error', 'timeout')
            : arkErrorObject(message, 'server_error', kind === 'access' ? 'access_ended' : 'server_error'),
        );
        sse.marker('[DONE]');
      },
    };
  return {
    chunk: (chunk) => sse.event('message', chunk),
    live: () => sse.marker('[LIVE_MODE]'),
    complete: (finalChunk) => {
      sse.event('message', finalChunk);
      sse.marker('[STREAM_END]');
      sse.marker('[DONE]');
    },
    error: (_kind, message) => {
      sse.event('error', { error: message });
      sse.marker('[DONE]');
    },
  };
}

/** A relayed chunk that reports an error (`{"error": {...}}`) ends its stream, as ARK's service ends it. */
export function isErrorChunk(chunk: unknown): boolean {
  return (
    chunk !== null && typeof chunk === 'object' && 'error' in chunk && Boolean((chunk as { error: unknown }).error)
  );
}
