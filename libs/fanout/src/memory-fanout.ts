import type { Fanout } from './fanout.js';

/** One process, no Redis: the embedded mode. */
export class MemoryFanout implements Fanout {
  private readonly listeners = new Map<string, Set<(message: string) => void>>();

  async publish(channel: string, message: string): Promise<number> {
    const listeners = this.listeners.get(channel) ?? new Set();
    for (const listener of listeners) listener(message);
    return listeners.size;
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(listener);
    return async () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(channel);
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
