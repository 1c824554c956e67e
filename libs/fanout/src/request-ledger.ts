import { Redis } from 'ioredis';
import type { Logger } from '@memstream/logging';

/**
 * Remembers, for a while, which write requests a gateway accepted. Between the broker's ack and
 * the converter's write a request exists nowhere else we can look, and `GET
 * /api/v1/stats/request` must still say `accepted` rather than "unknown".
 */
export interface RequestLedger {
  markAccepted(requestId: string): Promise<void>;
  isAccepted(requestId: string): Promise<boolean>;
  close(): Promise<void>;
}

const KEY_PREFIX = 'memstream:request:';

/** Shared by every replica. Writes are auto-pipelined, so a burst of requests costs a few round trips. */
export class RedisRequestLedger implements RequestLedger {
  private readonly redis: Redis;

  constructor(url: string, private readonly ttlSeconds: number, log: Logger) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 3, connectTimeout: 10_000, commandTimeout: 5_000, enableAutoPipelining: true });
    this.redis.on('error', (err) => log.warn({ err }, 'redis connection error'));
  }

  async markAccepted(requestId: string): Promise<void> {
    await this.redis.set(KEY_PREFIX + requestId, '1', 'EX', this.ttlSeconds);
  }

  async isAccepted(requestId: string): Promise<boolean> {
    return (await this.redis.exists(KEY_PREFIX + requestId)) === 1;
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}

/** One process: a bounded map, oldest dropped first. */
export class MemoryRequestLedger implements RequestLedger {
  private readonly expiries = new Map<string, number>();

  constructor(private readonly ttlSeconds: number, private readonly maxEntries = 200_000) {}

  async markAccepted(requestId: string): Promise<void> {
    this.expiries.set(requestId, Date.now() + this.ttlSeconds * 1000);
    if (this.expiries.size > this.maxEntries) this.expiries.delete(this.expiries.keys().next().value!);
  }

  async isAccepted(requestId: string): Promise<boolean> {
    const expiry = this.expiries.get(requestId);
    return expiry !== undefined && expiry > Date.now();
  }

  async close(): Promise<void> {
    this.expiries.clear();
  }
}

export function createRequestLedger(redisUrl: string | undefined, ttlSeconds: number, log: Logger): RequestLedger {
  return redisUrl ? new RedisRequestLedger(redisUrl, ttlSeconds, log.child({ component: 'request-ledger' })) : new MemoryRequestLedger(ttlSeconds);
}
