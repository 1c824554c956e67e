import { Redis } from 'ioredis';
import type { Logger } from '@memstream/logging';
import type { ResponseEvent, ResponseState, ResponseStreams } from './response-streams.js';

const keyOf = (conversationId: string) => `memstream:response:${conversationId}`;
/** How long a follower's blocking read waits before it looks at its abort signal again. */
const BLOCK_MS = 2_000;

/**
 * Across replicas: one Redis stream per conversation's response. Recording is XADD; an ended
 * response expires `retentionS` after its end. A follower reads the stream from its first entry
 * and then blocks for new ones on a connection of its own (a blocking read holds its connection).
 */
export class RedisResponseStreams implements ResponseStreams {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly retentionS: number,
    private readonly log: Logger,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 3, connectTimeout: 10_000, commandTimeout: 5_000 });
    this.redis.on('error', (err) => log.warn({ err }, 'redis connection error (response streams)'));
  }

  async record(conversationId: string, tokens: readonly string[], done: boolean): Promise<'recorded' | 'cancelled'> {
    const key = keyOf(conversationId);
    const state = await this.state(conversationId);
    if (state === 'cancelled') return 'cancelled';
    const tx = this.redis.multi();
    if (state === 'done') tx.del(key); // a new response replaces the ended one
    for (const text of tokens) tx.xadd(key, '*', 'type', 'token', 'text', text);
    if (done) tx.xadd(key, '*', 'type', 'done').expire(key, this.retentionS);
    else tx.persist(key);
    await tx.exec();
    return 'recorded';
  }

  async cancel(conversationId: string): Promise<boolean> {
    if ((await this.state(conversationId)) !== 'in_progress') return false;
    await this.redis
      .multi()
      .xadd(keyOf(conversationId), '*', 'type', 'cancelled')
      .expire(keyOf(conversationId), this.retentionS)
      .exec();
    return true;
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
    if (conversationIds.length > 0) await this.redis.del(...conversationIds.map(keyOf));
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
