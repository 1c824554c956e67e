import { createHash } from 'node:crypto';
import type { EpisodicMemory } from '@memstream/schemas';
import type { Queryable, Store } from '../../store.js';
import type { Episode } from './episodes.js';
import { visibleTo } from '../memberships/conversation-access.js';
import { deleteSearchRows } from '../search/search-rows.js';
import { hasSearchRow } from '../search/search-sql.js';

/** What an extractor made of an episode, before it is stored. */
export interface ExtractedMemory {
  /** null: the group's narrative; otherwise the participant the memory is about. */
  readonly userId: string | null;
  readonly title: string;
  readonly content: string;
}

interface MemoryRow {
  id: string;
  episode_id: number;
  version: number;
  conversation_id: string;
  user_id: string | null;
  title: string;
  content: string;
  occurred_at: Date;
  ended_at: Date;
  message_ids: string[];
  participants: string[];
  extractor: string;
}

const COLUMNS = `id, episode_id, version, conversation_id, user_id, title, content, occurred_at, ended_at,
  message_ids, participants, extractor`;

/**
 * Stores an extraction of a claimed episode: its memories as the episode's new version, the
 * older versions marked superseded (kept as history), and their search rows removed, all in the
 * caller's transaction. Returns undefined, storing nothing, when the episode changed since it was
 * claimed (a deletion bumped its version): that extraction describes messages that are gone.
 */
export async function completeEpisode(
  tx: Queryable,
  episode: Episode,
  memories: readonly ExtractedMemory[],
  details: { extractor: string; participants: readonly string[] },
  at: Date = new Date(),
): Promise<EpisodicMemory[] | undefined> {
  const done = await tx.query(
    `UPDATE episodes SET status = 'extracted', error = NULL, claimed_until = NULL, updated_at = $3::timestamptz
     WHERE group_key = $4 AND id = $1 AND version = $2`,
    [episode.id, episode.version, at.toISOString(), episode.group_key],
  );
  if (done.rowCount === 0) return undefined;
  // FOR UPDATE, not the UPDATE's own lock: marking a row superseded changes no key, so it would not
  // wait for an indexer holding the memory (FOR KEY SHARE) while writing its search row. Waiting
  // here, the DELETE below sees that row once committed; an indexer that comes later finds the
  // memory superseded and skips it. Keyed by the episode's group, the lock stays on its shard.
  const old = await tx.query<{ id: string; group_key: string }>(
    `WITH older AS (
       SELECT id FROM episodic_memories
       WHERE group_key = $4 AND episode_id = $1 AND version < $2 AND superseded_at IS NULL ORDER BY id FOR UPDATE)
     UPDATE episodic_memories m SET superseded_at = $3::timestamptz FROM older
     WHERE m.group_key = $4 AND m.id = older.id
     RETURNING m.id, m.group_key`,
    [episode.id, episode.version, at.toISOString(), episode.group_key],
  );
  await deleteSearchRows(
    tx,
    'episodic_memory',
    old.rows.map((r) => ({ groupKey: r.group_key, itemId: r.id })),
  );
  const { rows } = await tx.query<MemoryRow>(
    `INSERT INTO episodic_memories (id, episode_id, version, conversation_id, user_id, title, content,
       occurred_at, ended_at, message_ids, participants, extractor, group_key)
     SELECT id, $2, $3, $4, uid, title, content, $5, $6, $7::text[], $8::text[], $9, $13
     FROM unnest($1::text[], $10::text[], $11::text[], $12::text[]) AS t(id, uid, title, content)
     ON CONFLICT (id, group_key) DO UPDATE SET title = EXCLUDED.title
     RETURNING ${COLUMNS}`,
    [
      memories.map((m) => memoryIdOf(episode, m.userId)),
      episode.id,
      episode.version,
      episode.conversation_id,
      episode.start_time.toISOString(),
      episode.end_time.toISOString(),
      episode.message_ids,
      [...details.participants],
      details.extractor,
      memories.map((m) => m.userId),
      memories.map((m) => m.title),
      memories.map((m) => m.content),
      episode.group_key,
    ],
  );
  return rows.map(toEpisodicMemory);
}

/** Deterministic, so a redone extraction of the same version writes the same rows, not new ones. */
export function memoryIdOf(episode: Pick<Episode, 'id' | 'version'>, userId: string | null): string {
  const digest = createHash('sha256')
    .update(`${episode.id}\u0000${episode.version}\u0000${userId ?? ''}`)
    .digest('hex');
  return `mem_${digest.slice(0, 24)}`;
}

export interface ListMemoriesQuery {
  readonly conversationId?: string | undefined;
  /** A person's id: only conversations they may read (see visibleTo). Unset: every conversation. */
  readonly visibleTo?: string | undefined;
  /** A participant's memories; null: the group's own narrative (the memories about no one in particular). */
  readonly userId?: string | null | undefined;
  /** Memories of episodes that began within [from, to]. */
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
  readonly limit: number;
  readonly offset: number;
}

/** Current episodic memories, newest episode first, with the total. */
export async function listEpisodicMemories(
  q: Queryable,
  query: ListMemoriesQuery,
): Promise<{ items: EpisodicMemory[]; total: number }> {
  const where = ['superseded_at IS NULL'];
  const params: unknown[] = [];
  if (query.conversationId !== undefined) {
    params.push(query.conversationId);
    where.push(`conversation_id = $${params.length}`);
  }
  if (query.userId === null) where.push('user_id IS NULL');
  else if (query.userId !== undefined) {
    params.push(query.userId);
    where.push(`user_id = $${params.length}`);
  }
  if (query.from !== undefined) where.push(`occurred_at >= $${params.push(query.from.toISOString())}`);
  if (query.to !== undefined) where.push(`occurred_at <= $${params.push(query.to.toISOString())}`);
  if (query.visibleTo !== undefined) where.push(visibleTo('conversation_id', params, query.visibleTo));
  const filter = `WHERE ${where.join(' AND ')}`;
  const total = await q.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM episodic_memories ${filter}`, params);
  const { rows } = await q.query<MemoryRow>(
    `SELECT ${COLUMNS} FROM episodic_memories ${filter}
     ORDER BY occurred_at DESC, conversation_id DESC, episode_id DESC, user_id NULLS FIRST
     LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, query.limit, query.offset],
  );
  return { items: rows.map(toEpisodicMemory), total: total.rows[0]?.n ?? 0 };
}

/**
 * Current memories of the last day that have no search row (their event was lost, or is not
 * handled yet): the window keeps the repair sweep from walking every memory ever made.
 */
export async function unindexedMemories(q: Queryable, limit: number): Promise<EpisodicMemory[]> {
  const { rows } = await q.query<MemoryRow>(
    `SELECT ${COLUMNS} FROM episodic_memories m
     WHERE superseded_at IS NULL AND created_at > now() - interval '1 day'
       AND NOT ${hasSearchRow('episodic_memory', 'm.group_key', 'm.id')}
     ORDER BY created_at LIMIT $1`,
    [limit],
  );
  return rows.map(toEpisodicMemory);
}

/** The group of each memory of `ids` that exists, by id: a memory's group never changes. */
export async function groupsOfMemories(q: Queryable | Store, ids: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await q.query<{ id: string; group_key: string }>(
    'SELECT id, group_key FROM episodic_memories WHERE id = ANY($1::text[])',
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.group_key]));
}

/**
 * Locks the memories `ids` of the groups `groups` (their shard column) against a supersede or a
 * delete until the transaction ends, in id order, so that two writers of their search rows take
 * turns (see memoriesByShardGroup in search/search-items.ts).
 */
export async function lockMemories(tx: Queryable, groups: readonly string[], ids: readonly string[]): Promise<void> {
  await tx.query(
    `SELECT 1 FROM episodic_memories WHERE group_key = ANY($1::text[]) AND id = ANY($2::text[])
          ORDER BY id FOR NO KEY UPDATE`,
    [groups, ids],
  );
}

/** The current memories of the episodes that hold the given messages of a conversation. */
export async function memoriesOfMessage(
  q: Queryable,
  conversationId: string,
  messageId: string,
): Promise<EpisodicMemory[]> {
  const { rows } = await q.query<MemoryRow>(
    `SELECT ${COLUMNS} FROM episodic_memories
     WHERE conversation_id = $1 AND $2 = ANY(message_ids) AND superseded_at IS NULL
     ORDER BY user_id NULLS FIRST`,
    [conversationId, messageId],
  );
  return rows.map(toEpisodicMemory);
}

/** The current memories of the given episodes, in episode order, each group narrative first. */
export async function memoriesOfEpisodes(q: Queryable, episodeIds: readonly number[]): Promise<EpisodicMemory[]> {
  const { rows } = await q.query<MemoryRow>(
    `SELECT ${COLUMNS} FROM episodic_memories
     WHERE episode_id = ANY($1::int8[]) AND superseded_at IS NULL
     ORDER BY episode_id, user_id NULLS FIRST`,
    [[...episodeIds]],
  );
  return rows.map(toEpisodicMemory);
}

function toEpisodicMemory(r: MemoryRow): EpisodicMemory {
  return {
    id: r.id,
    episode_id: r.episode_id,
    version: r.version,
    conversation_id: r.conversation_id,
    user_id: r.user_id,
    title: r.title,
    content: r.content,
    occurred_at: r.occurred_at.toISOString(),
    ended_at: r.ended_at.toISOString(),
    message_ids: r.message_ids,
    participants: r.participants,
    extractor: r.extractor,
  };
}
