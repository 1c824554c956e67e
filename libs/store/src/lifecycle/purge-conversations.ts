import type { Queryable } from '../store.js';
import { PURGE_ORDER } from './registry.js';
import { lockEpisodes } from '../tables/memories/episodes.js';
import { NO_PURGE, type PurgeCounts } from '../participant/purge-counts.js';
import { lockGroupConversations } from '../tables/conversations/conversation-sql.js';

export { addPurgeCounts, NO_PURGE, type PurgeCounts } from '../participant/purge-counts.js';

export interface PurgeOptions {
  /**
   * Purge a group only if every one of its conversations is soft-deleted, deleted before this
   * time, and has stored no message since it was deleted. Checked under the rows' locks (a message
   * is appended under its conversation's row lock), so a group restored or written to meanwhile is
   * kept. Unset: purge whatever the groups hold, deleted or not (an erasure).
   */
  readonly deletedBefore?: Date | undefined;
}

export interface PurgeResult {
  readonly counts: PurgeCounts;
  /** The conversations that are gone, for what lives outside the database (response streams). */
  readonly conversationIds: readonly string[];
}

/**
 * Hard-deletes conversation groups (a conversation and its forks) and everything made from them in
 * every family: the rows of each table whose lifecycle participant has a purge part, in the order
 * of their stages (lifecycle/registry.ts). Run it inside a transaction: its
 * conversations are locked first (by group, then id, so two purges never deadlock, and a second
 * purge of the same group waits and then finds nothing), so a group is removed exactly once, whole.
 */
export async function purgeConversationGroups(
  tx: Queryable,
  groupIds: readonly string[],
  options: PurgeOptions = {},
): Promise<PurgeResult> {
  if (groupIds.length === 0) return { counts: NO_PURGE, conversationIds: [] };
  // a group at a time (Citus locks rows of one shard a statement), groups and rows in one order
  const byGroup = new Map<string, { id: string; deleted_at: Date | null }[]>();
  for (const group of [...new Set(groupIds)].sort()) {
    const rows = await lockGroupConversations(tx, group);
    if (rows.length > 0) byGroup.set(group, rows);
  }
  const locked = [...byGroup.values()].flat();
  const before = options.deletedBefore;
  const written = before === undefined ? new Set<string>() : await writtenSinceDeletion(tx, locked);
  const groups = [...byGroup.entries()]
    .filter(
      ([, rows]) =>
        before === undefined || rows.every((r) => r.deleted_at !== null && r.deleted_at < before && !written.has(r.id)),
    )
    .map(([group]) => group);
  // A group of memberships only (nothing was ever written to it) is purged too when no deletion is required.
  if (before === undefined) for (const g of groupIds) if (!byGroup.has(g)) groups.push(g);
  if (groups.length === 0) return { counts: NO_PURGE, conversationIds: [] };
  const ids = groups.flatMap((g) => (byGroup.get(g) ?? []).map((r) => r.id)).sort();
  // The extractor cuts episodes under this lock: it never sees a half-purged conversation.
  for (const id of ids) await lockEpisodes(tx, id);

  const keys = { conversations: ids, groups, both: [...new Set([...ids, ...groups])] };
  const counts: Record<keyof PurgeCounts, number> = { ...NO_PURGE, groups: groups.length };
  // each table's part says which ids find its rows and when it goes (PURGE_STAGES says why the order)
  for (const { table, purge } of PURGE_ORDER) {
    const found = keys[purge.by];
    const deleted = purge.deletes
      ? await purge.deletes(tx, found)
      : (await tx.query(`DELETE FROM ${table} WHERE ${purge.column} = ANY($1::text[])`, [found])).rowCount;
    if (purge.counts) counts[purge.counts] += deleted ?? 0;
  }
  return { counts, conversationIds: ids };
}

/** The deleted conversations that stored a row (a message) after their deletion. */
async function writtenSinceDeletion(
  tx: Queryable,
  rows: readonly { id: string; deleted_at: Date | null }[],
): Promise<Set<string>> {
  const deleted = rows.filter((r) => r.deleted_at !== null);
  const written = new Set<string>();
  if (deleted.length === 0) return written;
  for (const { table, purge } of PURGE_ORDER) {
    if (purge.storedAt === undefined) continue;
    // a join, not a subquery per conversation: Citus refuses a subquery reading unnest()'s rows
    const { rows: found } = await tx.query<{ id: string }>(
      `SELECT DISTINCT d.id FROM unnest($1::text[], $2::timestamptz[]) AS d(id, deleted_at)
       JOIN ${table} m ON m.${purge.column} = d.id AND m.${purge.storedAt.column} > d.deleted_at`,
      [deleted.map((r) => r.id), deleted.map((r) => r.deleted_at)],
    );
    for (const r of found) written.add(r.id);
  }
  return written;
}
