import { Redis } from 'ioredis';
import type { Logger } from '@memstream/logging';
import type { Fanout } from './fanout.js';

/**
 * Redis pub/sub across replicas. A connection in subscriber mode can do nothing else, so there
 * are two: one publishes, one listens. Channels are subscribed once per process however many
 * local listeners they have.
 */
export class RedisFanout implements Fanout {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly listeners = new Map<string, Set<(message: string) => void>>();

  constructor(url: string, log: Logger) {
    const options = { maxRetriesPerRequest: 3, connectTimeout: 10_000, commandTimeout: 5_000, lazyConnect: false, enableAutoPipelining: true };
    this.pub = new Redis(url, options);
    this.sub = new Redis(url, { ...options, commandTimeout: undefined, enableAutoPipelining: false });
    // ioredis reconnects by itself; an unhandled 'error' event would crash the process instead.
    for (const [role, client] of [['pub', this.pub], ['sub', this.sub]] as const) {
      client.on('error', (err) => log.warn({ err, role }, 'redis connection error'));
    }
    this.sub.on('message', (channel: string, message: string) => {
      for (const listener of this.listeners.get(channel) ?? []) listener(message);
    });
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.pub.publish(channel, message);
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    let set = this.listeners.get(channel);
    if (!set) {
      this.listeners.set(channel, (set = new Set()));
      await this.sub.subscribe(channel);
    }
    set.add(listener);
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
