import {
  defaultMetaOfGroup,
  findConversationMetas,
  findDefaultConversationMeta,
  type Queryable,
  type StoredConversationMeta,
  type StoredDefaultConversationMeta,
} from '@memstream/store';

/**
 * Conversation metadata, cached per group for a short while. It is safe to cache because a group's
 * metadata changes only through its own partition of the input topic, which this converter
 * consumes, and every change it applies is written through. The time to live covers the one gap:
 * a partition that moved to another replica and back after a rebalance.
 *
 * The default config (what a group without metadata falls back to) is cached the same way, but it
 * has a partition of its own, which another replica may consume: a change to it reaches the
 * messages of other groups within the time to live.
 */
export class MetaCache {
  private readonly entries = new Map<string, { meta: StoredConversationMeta | undefined; until: number }>();
  private fallback: { meta: StoredDefaultConversationMeta | undefined; until: number } | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
  ) {}

  async get(q: Queryable, groupIds: Iterable<string>): Promise<Map<string, StoredConversationMeta>> {
    const now = Date.now();
    const found = new Map<string, StoredConversationMeta>();
    const missing: string[] = [];
    for (const id of new Set(groupIds)) {
      const entry = this.entries.get(id);
      if (entry && entry.until > now) {
        if (entry.meta) found.set(id, entry.meta);
      } else {
        missing.push(id);
      }
    }
    if (missing.length > 0) {
      const fetched = await findConversationMetas(q, missing);
      for (const id of missing) {
        const meta = fetched.get(id);
        this.remember(id, meta, now);
        if (meta) found.set(id, meta);
      }
    }
    return found;
  }

  /** Each group's metadata, or the default config applied to it when it has none (and there is one). */
  async effective(q: Queryable, groupIds: Iterable<string>): Promise<Map<string, StoredConversationMeta>> {
    const ids = [...new Set(groupIds)];
    const found = await this.get(q, ids);
    if (found.size === ids.length) return found;
    const fallback = await this.defaultMeta(q);
    if (fallback) for (const id of ids) if (!found.has(id)) found.set(id, defaultMetaOfGroup(fallback, id));
    return found;
  }

  async defaultMeta(q: Queryable): Promise<StoredDefaultConversationMeta | undefined> {
    const now = Date.now();
    if (this.fallback && this.fallback.until > now) return this.fallback.meta;
    const meta = await findDefaultConversationMeta(q);
    this.fallback = { meta, until: now + this.ttlMs };
    return meta;
  }

  /** Write-through of the default config. */
  setDefault(meta: StoredDefaultConversationMeta): void {
    this.fallback = { meta, until: Date.now() + this.ttlMs };
  }

  /** Write-through: the converter calls this for every metadata row it writes. */
  set(meta: StoredConversationMeta): void {
    this.remember(meta.group_id, meta, Date.now());
  }

  /** After a failed transaction the cache may hold rows that were rolled back. */
  clear(): void {
    this.entries.clear();
    this.fallback = undefined;
  }

  private remember(id: string, meta: StoredConversationMeta | undefined, now: number): void {
    this.entries.delete(id);
    this.entries.set(id, { meta, until: now + this.ttlMs });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
