import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { connectRedis } from './redis-connection.js';
import type { Logger } from '@memstream/logging';
import {
  inProgressLimitOf,
  type RecordResult,
  type ResponseEvent,
  type ResponseLimits,
  type ResponseRecorder,
  type ResponseState,
  type ResponseStreams,
} from './response-streams.js';
import { RECORD_SCRIPT, STOP_SCRIPT } from './redis-response-scripts.js';

const keyOf = (conversationId: string) => `memstream:response:${conversationId}`;
/** The response's sizes and recorder, beside its stream (a hash: bytes, tokens, recorder). */
const sizesKeyOf = (conversationId: string) => `memstream:response-sizes:${conversationId}`;
/**
 * One recorder's responses in progress: a sorted set of conversations scored by when each falls
 * silent. Named by a digest of the caller, so no person's id is a Redis key an erasure must find.
 */
const recorderOf = (recorder: ResponseRecorder) => createHash('sha256').update(recorder.key).digest('hex').slice(0, 32);
const recorderKeyOf = (digest: string) => `memstream:response-recorder:${digest}`;
/** How long a follower's blocking read waits before it looks at its abort signal again. */
const BLOCK_MS = 2_000;

/**
 * Across replicas: one Redis stream per conversation's response. Recording is XADD, with its
 * bounds checked in the same script, so two replicas recording at once cannot pass one together.
 * An unfinished response's keys expire after `idleS` of silence, an ended one's `retentionS` after
 * its end: nothing a recorder sends outlives them. A follower reads the stream from its first entry
 * and then blocks for new ones on a connection of its own (a blocking read holds its connection).
 */
export class RedisResponseStreams implements ResponseStreams {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly retentionS: number,
    private readonly limits: ResponseLimits,
    private readonly log: Logger,
  ) {
    this.redis = connectRedis(url, { maxRetriesPerRequest: 3, connectTimeout: 10_000, commandTimeout: 5_000 });
    this.redis.on('error', (err) => log.warn({ err }, 'redis connection error (response streams)'));
  }

  async record(
    conversationId: string,
    tokens: readonly string[],
    done: boolean,
    recorder: ResponseRecorder,
  ): Promise<RecordResult> {
    const digest = recorderOf(recorder);
    const reply = (await this.redis.eval(
      RECORD_SCRIPT,
      3,
      keyOf(conversationId),
      sizesKeyOf(conversationId),
      recorderKeyOf(digest),
      conversationId,
      digest,
      Date.now(),
      this.limits.idleS,
      this.retentionS,
      this.limits.maxBytes,
      this.limits.maxTokens,
      inProgressLimitOf(this.limits, recorder),
      done ? 1 : 0,
      ...tokens,
    )) as [string, string?, number?];
    if (reply[0] === 'refused')
      return { refused: reply[1] as 'bytes' | 'tokens' | 'in_progress', limit: Number(reply[2]) };
    return reply[0] === 'cancelled' ? 'cancelled' : 'recorded';
  }

  async cancel(conversationId: string): Promise<boolean> {
    const stopped = await this.redis.eval(
      STOP_SCRIPT,
      2,
      keyOf(conversationId),
      sizesKeyOf(conversationId),
      'cancel',
      this.retentionS,
      conversationId,
    );
    return stopped === 1;
  }

  async state(conversationId: string): Promise<ResponseState> {
    const last = await this.redis.xrevrange(keyOf(conversationId), '+', '-', 'COUNT', 1);
    if (last.length === 0) return 'none';
    const type = fieldsOf(last[0]![1])['type'];
    return type === 'done' ? 'done' : type === 'cancelled' ? 'cancelled' : 'in_progress';
  }

  async follow(conversationId: string, onEvent: (event: ResponseEvent) => void, signal: AbortSignal): Promise<void> {
    const reader = this.redis.duplicate({ commandTimeout: undefined });
    reader.on('error', (err) => this.log.warn({ err }, 'redis connection error (response follower)'));
    // A follower stopped (its reader left, its access ended, shutdown) stops now, not when the
    // blocking read next times out: dropping the connection ends that read.
    const stop = () => reader.disconnect();
    signal.addEventListener('abort', stop, { once: true });
    try {
      let from = '0';
      while (!signal.aborted) {
        const reply = (await reader.xread(
          'COUNT',
          500,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          keyOf(conversationId),
          from,
        )) as Array<[string, Array<[string, string[]]>]> | null;
        for (const [id, raw] of reply?.[0]?.[1] ?? []) {
          from = id;
          const fields = fieldsOf(raw);
          const event: ResponseEvent =
            fields['type'] === 'token'
              ? { type: 'token', text: fields['text'] ?? '' }
              : { type: fields['type'] === 'done' ? 'done' : 'cancelled' };
          onEvent(event);
          if (event.type !== 'token') return;
        }
        // An expired response (silent too long, or its retention over) ends its followers too.
        if (reply === null && (await this.state(conversationId)) === 'none') return;
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    } finally {
      signal.removeEventListener('abort', stop);
      reader.disconnect();
    }
  }

  async discard(conversationIds: readonly string[]): Promise<void> {
    for (const id of conversationIds)
      await this.redis.eval(STOP_SCRIPT, 2, keyOf(id), sizesKeyOf(id), 'discard', this.retentionS, id);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

function fieldsOf(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) out[raw[i]!] = raw[i + 1]!;
  return out;
}
