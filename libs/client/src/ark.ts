import type { z } from 'zod';
import type {
  ArkListQuery,
  ArkMessageBatch,
  ArkPurgeQuery,
  ArkStreamQuery,
  ArkStreamStatistics,
} from '@memstream/schemas';
import { MemstreamError } from './errors.js';
import type { CallOptions, Http } from './http.js';
import type { ArkPage, ArkStored } from './responses.js';
import { ROUTES } from './routes.js';
import { sseFrames } from './sse.js';

const R = ROUTES.ark;

/** What an ARK stream yields: chat.completion.chunk objects, and where the replay turns live. */
export type ArkStreamEvent =
  | { readonly type: 'chunk'; readonly chunk: Record<string, unknown> }
  /** The replay (`from-beginning`) is over; what follows is live. */
  | { readonly type: 'live' }
  /** The session was completed; the stream ends right after. */
  | { readonly type: 'end' };

export interface StreamOptions extends CallOptions {
  readonly fromBeginning?: boolean;
  /** Wait this long (a Go duration: 500ms, 30s, 5m) for a session that does not exist yet. */
  readonly waitForSession?: string;
  /** Called once the server has accepted the stream (its headers arrived): from then on nothing new is missed. */
  readonly onOpen?: () => void;
}

/** ARK's Memory API: message batches, sessions and their event streams. */
export class Ark {
  constructor(private readonly http: Http) {}

  /** Stores a batch of OpenAI chat messages whole and in order. */
  postMessages(batch: z.input<typeof ArkMessageBatch>, options?: CallOptions): Promise<ArkStored> {
    return this.http.call(R.postMessages, { body: batch }, options);
  }

  listMessages(query: z.input<typeof ArkListQuery> = {}, options?: CallOptions): Promise<ArkPage> {
    return this.http.call(R.listMessages, { query }, options);
  }

  /** Purges the stored messages of one session, or of every ARK session the caller may manage (ARK's purge). */
  purgeMessages(
    query: z.input<typeof ArkPurgeQuery> = {},
    options?: CallOptions,
  ): Promise<{ message: string; sessions: string[]; deleted_messages: number }> {
    return this.http.call(R.purgeMessages, { query }, options);
  }

  async sessions(options?: CallOptions): Promise<string[]> {
    return (await this.http.call<{ sessions: string[] }>(R.sessions, {}, options)).sessions;
  }

  /** Relays token chunks to the session's readers (and keeps them for replay). */
  relayChunks(
    sessionId: string,
    chunks: Record<string, unknown>[],
    options?: CallOptions,
  ): Promise<{ status: 'ok'; session: string; chunks: number }> {
    // Newline-delimited JSON is the relay's native form (ARK agents post it that way).
    // (the route's schema gives the value each line holds, so the text goes as that value's type)
    const ndjson = chunks.map((c) => JSON.stringify(c)).join('\n') as unknown as Record<string, unknown>;
    return this.http.call(R.relayChunks, { params: { session_id: sessionId }, body: ndjson }, options);
  }

  completeSession(
    sessionId: string,
    options?: CallOptions,
  ): Promise<{ status: 'completed' | 'already_completed'; session: string; query: string }> {
    return this.http.call(R.completeSession, { params: { session_id: sessionId } }, options, true);
  }

  completeStream(
    sessionId: string,
    options?: CallOptions,
  ): Promise<{ status: 'completed' | 'already_completed'; session: string; query: string }> {
    return this.http.call(R.completeStream, { params: { session_id: sessionId } }, options, true);
  }

  /** Chunk counts and completion of every relayed stream the caller may read, keyed by session (query) id. */
  streamStatistics(options?: CallOptions): Promise<ArkStreamStatistics> {
    return this.http.call(R.streamStatistics, {}, options);
  }

  /** Forgets the relayed chunks and completion of every stream the caller manages (ARK's stream purge). */
  purgeStreams(options?: CallOptions): Promise<{ status: 'success'; message: string; sessions: string[] }> {
    return this.http.call(R.purgeStreams, {}, options);
  }

  /**
   * The session's stream as an async iterator; it ends when the session is completed, and
   * breaking out of the loop (or aborting `signal`) closes the connection.
   */
  async *stream(sessionId: string, options: StreamOptions = {}): AsyncGenerator<ArkStreamEvent> {
    const query: z.input<typeof ArkStreamQuery> = {
      ...(options.fromBeginning ? { 'from-beginning': 'true' } : {}),
      ...(options.waitForSession ? { 'wait-for-session': 'true', timeout: options.waitForSession } : {}),
    };
    const response = await this.http.open(R.stream, { params: { session_id: sessionId }, query }, options);
    options.onOpen?.();
    for await (const frame of sseFrames(response, options.signal)) {
      if (frame.event === 'error') {
        throw new MemstreamError({
          status: 404,
          family: 'ark',
          code: 'RESOURCE_NOT_FOUND',
          message: errorText(frame.data),
          body: frame.data,
        });
      }
      if (frame.data === '[DONE]') return;
      if (frame.data === '[LIVE_MODE]') yield { type: 'live' };
      else if (frame.data === '[STREAM_END]') yield { type: 'end' };
      else yield { type: 'chunk', chunk: JSON.parse(frame.data) as Record<string, unknown> };
    }
  }
}

function errorText(data: string): string {
  try {
    const parsed = JSON.parse(data) as { error?: unknown };
    return typeof parsed.error === 'string' ? parsed.error : data;
  } catch {
    return data;
  }
}
