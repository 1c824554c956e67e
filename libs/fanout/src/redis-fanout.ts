import type { Redis } from 'ioredis';
import { connectRedis } from './redis-connection.js';
import type { Logger } from '@memstream/logging';
import type { Fanout } from './fanout.js';

/**
 * Redis pub/sub across replicas. A connection in subscriber mode can do nothing else, so there
 * are two: one publishes, one listens. Channels are subscribed once per process however many
 * local listeners they have.
 *
 * Subscriptions wait for the connection's `ready`: a SUBSCRIBE sent before ioredis's ready check
 * turns the connection into subscriber mode, the check's INFO is refused, ioredis reconnects,
 * and the subscription is gone while its promise had resolved (redis/ioredis#2037). That left a
 * replica healthy yet deaf to request outcomes. Every `ready` also re-subscribes what we hold.
 */
export class RedisFanout implements Fanout {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly listeners = new Map<string, Set<(message: string) => void>>();
  /** The SUBSCRIBE of a channel, so a second listener waits for the same confirmation. */
  private readonly subscribing = new Map<string, Promise<void>>();
  private subReady: Promise<void>;

  constructor(url: string, log: Logger) {
    const options = {
      maxRetriesPerRequest: 3,
      connectTimeout: 10_000,
      commandTimeout: 5_000,
      lazyConnect: false,
      enableAutoPipelining: true,
    };
    this.pub = connectRedis(url, options);
    this.sub = connectRedis(url, {
      ...options,
      commandTimeout: undefined,
      enableAutoPipelining: false,
      autoResubscribe: false,
    });
    // ioredis reconnects by itself; an unhandled 'error' event would crash the process instead.
    for (const [role, client] of [
      ['pub', this.pub],
      ['sub', this.sub],
    ] as const) {
      client.on('error', (err) => log.warn({ err, role }, 'redis connection error'));
    }
    this.subReady = new Promise<void>((resolve) => this.sub.once('ready', () => resolve()));
    this.sub.on('ready', () => {
      const channels = [...this.listeners.keys()];
      if (channels.length > 0) {
        this.sub
          .subscribe(...channels)
          .catch((err: unknown) => log.error({ err, channels }, 'redis re-subscribe failed'));
      }
    });
    this.sub.on('message', (channel: string, message: string) => {
      for (const listener of this.listeners.get(channel) ?? []) listener(message);
    });
  }

  async publish(channel: string, message: string): Promise<number> {
    return this.pub.publish(channel, message);
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    let set = this.listeners.get(channel);
    if (!set) {
      this.listeners.set(channel, (set = new Set()));
      const pending = this.subReady.then(async () => void (await this.sub.subscribe(channel)));
      this.subscribing.set(channel, pending);
      void pending
        .finally(() => {
          if (this.subscribing.get(channel) === pending) this.subscribing.delete(channel);
        })
        .catch(() => undefined);
    }
    set.add(listener);
    await this.subscribing.get(channel);
    return async () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(channel) === set) {
        this.listeners.delete(channel);
        await this.sub.unsubscribe(channel);
      }
    };
  }

  async ping(): Promise<void> {
    await this.pub.ping();
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await Promise.all([this.pub.quit(), this.sub.quit()]);
  }
}
