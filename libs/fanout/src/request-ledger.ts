import type { Redis } from 'ioredis';
import { connectRedis } from './redis-connection.js';
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

const KEY_PREFIX = 'memstream:accepted:';
/** A marker lives in one of this many time buckets; a lookup reads them all. */
const BUCKETS = 6;

/**
 * Shared by every replica. Markers go into one Redis set per time bucket (a sixth of the time to
 * live), and the marks of one event-loop turn go out as a single SADD: at thousands of requests a
 * second a command per request was a tenth of the gateway's CPU. A bucket expires whole once its
 * youngest marker is past the time to live, so a marker lives between ttl and ttl + ttl/6.
 */
export class RedisRequestLedger implements RequestLedger {
  private readonly redis: Redis;
  private readonly bucketMs: number;
  private queued: { ids: string[]; done: Promise<void> } | undefined;

  constructor(
    url: string,
    private readonly ttlSeconds: number,
    log: Logger,
  ) {
    this.redis = connectRedis(url, {
      maxRetriesPerRequest: 3,
      connectTimeout: 10_000,
      commandTimeout: 5_000,
      enableAutoPipelining: true,
    });
    this.redis.on('error', (err) => log.warn({ err }, 'redis connection error'));
    this.bucketMs = Math.max(1000, Math.floor((ttlSeconds * 1000) / BUCKETS));
  }

  markAccepted(requestId: string): Promise<void> {
    if (!this.queued) {
      const ids: string[] = [];
      const done = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        this.queued = undefined;
        const bucket = Math.floor(Date.now() / this.bucketMs);
        const key = KEY_PREFIX + bucket;
        await this.redis
          .multi()
          .sadd(key, ...ids)
          .pexpire(key, this.ttlSeconds * 1000 + this.bucketMs)
          .exec();
      });
      this.queued = { ids, done };
    }
    this.queued.ids.push(requestId);
    return this.queued.done;
  }

  async isAccepted(requestId: string): Promise<boolean> {
    const newest = Math.floor(Date.now() / this.bucketMs);
    const keys = Array.from({ length: BUCKETS + 1 }, (_, i) => KEY_PREFIX + (newest - i));
    const found = await Promise.all(keys.map((key) => this.redis.sismember(key, requestId)));
    return found.some((n) => n === 1);
  }

  async close(): Promise<void> {
    await this.queued?.done.catch(() => undefined);
    await this.redis.quit();
  }
}

/** One process: a bounded map, oldest dropped first. */
export class MemoryRequestLedger implements RequestLedger {
  private readonly expiries = new Map<string, number>();

  constructor(
    private readonly ttlSeconds: number,
    private readonly maxEntries = 200_000,
  ) {}

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
  return redisUrl
    ? new RedisRequestLedger(redisUrl, ttlSeconds, log.child({ component: 'request-ledger' }))
    : new MemoryRequestLedger(ttlSeconds);
}
