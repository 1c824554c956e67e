import type { Queryable } from '../store.js';
import { lockEpisodes } from './episodes.js';

/** What a purge removed, per table (the keyword statistics follow search_items by trigger). */
export interface PurgeCounts {
  readonly groups: number;
  readonly conversations: number;
  readonly messages: number;
  readonly searchItems: number;
  readonly episodes: number;
  readonly episodicMemories: number;
  readonly summaries: number;
  readonly kaosSessions: number;
  readonly kaosEvents: number;
  readonly arkSessions: number;
  readonly streamChunks: number;
  readonly memberships: number;
  /** Removed memberships kept for the record (see removeMembership). */
  readonly membershipRemovals: number;
  readonly transfers: number;
  readonly conversationMeta: number;
  readonly requestOutcomes: number;
}

export const NO_PURGE: PurgeCounts = Object.freeze({
  groups: 0,
  conversations: 0,
  messages: 0,
  searchItems: 0,
  episodes: 0,
  episodicMemories: 0,
  summaries: 0,
  kaosSessions: 0,
  kaosEvents: 0,
  arkSessions: 0,
  streamChunks: 0,
  memberships: 0,
  membershipRemovals: 0,
  transfers: 0,
  conversationMeta: 0,
  requestOutcomes: 0,
});

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
 * every family: messages, search rows and vectors (and their keyword statistics), episodes and episodic memories, rolling
 * summaries, KAOS sessions and events, ARK sessions and relayed chunks, memberships (removed ones
 * too) and ownership transfers, EverMemOS group metadata and request outcomes. Run it inside a transaction: its
 * conversations are locked first (in id order, so two purges never deadlock, and a second purge
 * of the same group waits and then finds nothing), so a group is removed exactly once, whole.
 */
export async function purgeConversationGroups(
  tx: Queryable,
  groupIds: readonly string[],
  options: PurgeOptions = {},
): Promise<PurgeResult> {
  if (groupIds.length === 0) return { counts: NO_PURGE, conversationIds: [] };
  const locked = await tx.query<{ id: string; group_id: string; deleted_at: Date | null }>(
    `SELECT id, COALESCE(group_id, id) AS group_id, deleted_at FROM conversations
     WHERE COALESCE(group_id, id) = ANY($1::text[]) ORDER BY id FOR UPDATE`,
    [[...groupIds]],
  );
  const byGroup = new Map<string, { id: string; deleted_at: Date | null }[]>();
  for (const row of locked.rows) byGroup.set(row.group_id, [...(byGroup.get(row.group_id) ?? []), row]);
  const before = options.deletedBefore;
  const written = before === undefined ? new Set<string>() : await writtenSinceDeletion(tx, locked.rows);
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

  const count = async (sql: string, values: readonly unknown[]) => (await tx.query(sql, values)).rowCount ?? 0;
  const both = [...new Set([...ids, ...groups])];
  // Messages and memories before their search rows: the indexer writes a row only while it holds
  // its message or memory (FOR KEY SHARE), so once both are gone no row can come back after the
  // rows below are deleted. (Memories deleted after the rows let an indexer that took a memory in
  // between leave its row, with the memory's words, behind: the erasure test caught one under load.)
  const messages = await count('DELETE FROM messages WHERE conversation_id = ANY($1::text[])', [ids]);
  const episodicMemories = await count('DELETE FROM episodic_memories WHERE conversation_id = ANY($1::text[])', [ids]);
  const searchItems = await count('DELETE FROM search_items WHERE conversation_id = ANY($1::text[])', [ids]);
  // the triggers count a conversation's statistics down to zero and keep the zero rows: they go too
  await tx.query('DELETE FROM search_keyword_totals WHERE conversation_id = ANY($1::text[])', [ids]);
  await tx.query('DELETE FROM search_keyword_frequencies WHERE conversation_id = ANY($1::text[])', [ids]);
  const episodes = await count('DELETE FROM episodes WHERE conversation_id = ANY($1::text[])', [ids]);
  // one statement for the whole version chain: its self-reference is checked at the statement's end
  const summaries = await count('DELETE FROM memory WHERE conversation_id = ANY($1::text[])', [ids]);
  const kaosEvents = await count('DELETE FROM kaos_events WHERE conversation_id = ANY($1::text[])', [ids]);
  const kaosSessions = await count('DELETE FROM kaos_sessions WHERE conversation_id = ANY($1::text[])', [ids]);
  const streamChunks = await count('DELETE FROM stream_chunks WHERE session_id = ANY($1::text[])', [both]);
  const arkSessions = await count('DELETE FROM ark_sessions WHERE session_id = ANY($1::text[])', [both]);
  const requestOutcomes = await count('DELETE FROM request_outcomes WHERE group_id = ANY($1::text[])', [both]);
  const conversationMeta = await count('DELETE FROM conversation_meta WHERE group_id = ANY($1::text[])', [both]);
  const transfers = await count('DELETE FROM conversation_ownership_transfers WHERE group_id = ANY($1::text[])', [
    groups,
  ]);
  const memberships = await count('DELETE FROM conversation_memberships WHERE group_id = ANY($1::text[])', [groups]);
  const membershipRemovals = await count(
    'DELETE FROM conversation_membership_removals WHERE group_id = ANY($1::text[])',
    [groups],
  );
  const conversations = await count('DELETE FROM conversations WHERE id = ANY($1::text[])', [ids]);
  return {
    counts: {
      groups: groups.length,
      conversations,
      messages,
      searchItems,
      episodes,
      episodicMemories,
      summaries,
      kaosSessions,
      kaosEvents,
      arkSessions,
      streamChunks,
      memberships,
      membershipRemovals,
      transfers,
      conversationMeta,
      requestOutcomes,
    },
    conversationIds: ids,
  };
}

/** The deleted conversations that stored a message after their deletion. */
async function writtenSinceDeletion(
  tx: Queryable,
  rows: readonly { id: string; deleted_at: Date | null }[],
): Promise<Set<string>> {
  const deleted = rows.filter((r) => r.deleted_at !== null);
  if (deleted.length === 0) return new Set();
  const { rows: found } = await tx.query<{ id: string }>(
    `SELECT d.id FROM unnest($1::text[], $2::timestamptz[]) AS d(id, deleted_at)
     WHERE EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = d.id AND m.stored_at > d.deleted_at)`,
    [deleted.map((r) => r.id), deleted.map((r) => r.deleted_at)],
  );
  return new Set(found.map((r) => r.id));
}

/** Adds two purges' counts (a job's running total). */
export function addPurgeCounts(a: PurgeCounts, b: Partial<PurgeCounts>): PurgeCounts {
  const sum = { ...a } as Record<keyof PurgeCounts, number>;
  for (const key of Object.keys(NO_PURGE) as (keyof PurgeCounts)[]) sum[key] = (a[key] ?? 0) + (b[key] ?? 0);
  return sum;
}
