import { findConversationMetas, type Queryable, type StoredConversationMeta } from '@memstream/store';

/**
 * Conversation metadata, cached per group for a short while. It is safe to cache because a group's
 * metadata changes only through its own partition of the input topic, which this converter
 * consumes, and every change it applies is written through. The time to live covers the one gap:
 * a partition that moved to another replica and back after a rebalance.
 */
export class MetaCache {
  private readonly entries = new Map<string, { meta: StoredConversationMeta | undefined; until: number }>();

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

  /** Write-through: the converter calls this for every metadata row it writes. */
  set(meta: StoredConversationMeta): void {
    this.remember(meta.group_id, meta, Date.now());
  }

  /** After a failed transaction the cache may hold rows that were rolled back. */
  clear(): void {
    this.entries.clear();
  }

  private remember(id: string, meta: StoredConversationMeta | undefined, now: number): void {
    this.entries.delete(id);
    this.entries.set(id, { meta, until: now + this.ttlMs });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
