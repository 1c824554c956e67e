import { databaseNow } from '../../database-clock.js';
import type { Queryable } from '../../store.js';
import { joinMessage } from '../conversations/message-sql.js';

/**
 * What forgetting messages (lifecycle/forget.ts) does to the episodes that held them and the
 * memories extracted from those: an episode keeps what is left and is extracted again, or goes
 * when nothing is left, and its memories go with the words they were made of.
 */

/**
 * The messages of the episode an event id names: an episode by its number, or a memory by its id
 * (its episode). A number is checked here, not cast in SQL, so an id that is neither matches
 * nothing instead of failing the statement.
 */
export function messagesOfEpisodeOrMemory(params: unknown[], eventId: string): string {
  const episodeNumber = /^[0-9]{1,18}$/.test(eventId) ? eventId : null;
  const n = params.push(episodeNumber, eventId);
  // the episode's messages by their whole key, its group first (the set-returning unnest in the
  // select list, not a LATERAL join: Citus refuses a lateral beside a distributed table)
  return `(group_key, conversation_id, message_id) IN (
    SELECT e.group_key, e.conversation_id, unnest(e.message_ids) FROM episodes e
    WHERE e.id = $${n - 1}::int8 OR e.id = (SELECT em.episode_id FROM episodic_memories em WHERE em.id = $${n}::text LIMIT 1))`;
}

export interface AffectedEpisode {
  readonly id: string;
  readonly groupKey: string;
  readonly conversationId: string;
  /** The messages it keeps, in its order; null: none. */
  readonly remaining: string[] | null;
}

/**
 * The episodes holding any of the deleted messages, locked. A row lock names its group (Citus
 * locks rows of one shard a statement), so they are read a conversation at a time, conversations
 * in one order and episodes in id order within each, so two deletions cannot deadlock.
 */
export async function lockAffectedEpisodes(
  tx: Queryable,
  deleted: readonly { conversation_id: string; message_id: string; group_key: string }[],
): Promise<AffectedEpisode[]> {
  const byConversation = new Map<string, { groupKey: string; gone: Set<string> }>();
  for (const r of deleted) {
    const entry = byConversation.get(r.conversation_id) ?? { groupKey: r.group_key, gone: new Set<string>() };
    entry.gone.add(r.message_id);
    byConversation.set(r.conversation_id, entry);
  }
  const affected: AffectedEpisode[] = [];
  for (const conversationId of [...byConversation.keys()].sort()) {
    const { groupKey, gone } = byConversation.get(conversationId)!;
    const { rows } = await tx.query<{ id: string; message_ids: string[] }>(
      `SELECT id, message_ids FROM episodes
       WHERE group_key = $1 AND conversation_id = $2 AND message_ids && $3::text[]
       ORDER BY id FOR UPDATE`,
      [groupKey, conversationId, [...gone]],
    );
    for (const e of rows) {
      const remaining = e.message_ids.filter((m) => !gone.has(m));
      affected.push({ id: e.id, groupKey, conversationId, remaining: remaining.length > 0 ? remaining : null });
    }
  }
  return affected;
}

/**
 * Gives each episode what it keeps and a new version, due again at once by the clock the
 * extractors claim by (claimEpisodes), not by this process's. Its times become those of the kept
 * messages, looked up by their whole key: a join, not a subquery per episode (Citus refuses one
 * beside unnest()), and the kept ids travel as rows, not as array literals (Citus runs no text[]
 * cast, a STABLE function, on a row of an UPDATE). An episode none of whose kept messages is found
 * gets no times and fails the statement, as before.
 */
export async function reopenEpisodes(
  tx: Queryable,
  kept: readonly (AffectedEpisode & { remaining: string[] })[],
): Promise<void> {
  const now = await databaseNow(tx);
  const rows = kept.flatMap((e) => e.remaining.map((messageId) => ({ e, messageId })));
  await tx.query(
    `WITH kept AS (
       SELECT r.id, r.g, array_agg(r.mid ORDER BY r.o) AS ids
         FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS r(id, g, c, mid, o)
        GROUP BY r.id, r.g),
     span AS (
       SELECT r.id, min(m.created_at) AS first, max(m.created_at) AS last
         FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[]) AS r(id, g, c, mid)
         ${joinMessage('m', 'r.g', 'r.c', 'r.mid')}
        GROUP BY r.id)
     UPDATE episodes e SET message_ids = k.ids, version = e.version + 1, status = 'pending', attempts = 0,
       next_attempt_at = $5::timestamptz, claimed_until = NULL, error = NULL, updated_at = $5::timestamptz,
       start_time = s.first, end_time = s.last
     FROM kept k LEFT JOIN span s ON s.id = k.id
     WHERE e.group_key = k.g AND e.id = k.id`,
    [
      rows.map((r) => r.e.id),
      rows.map((r) => r.e.groupKey),
      rows.map((r) => r.e.conversationId),
      rows.map((r) => r.messageId),
      now,
    ],
  );
}

/**
 * Deletes the memories extracted from the episodes `episodeIds` (of the groups `groups`), their
 * superseded versions too; returns each one's id, group and whether it was the current version.
 */
export async function deleteMemoriesOfEpisodes(
  tx: Queryable,
  episodeIds: readonly string[],
  groups: readonly string[],
): Promise<Array<{ id: string; current: boolean; group_key: string }>> {
  const { rows } = await tx.query<{ id: string; current: boolean; group_key: string }>(
    `DELETE FROM episodic_memories WHERE group_key = ANY($2::text[]) AND episode_id = ANY($1::int8[])
     RETURNING id, superseded_at IS NULL AS current, group_key`,
    [[...episodeIds], [...groups]],
  );
  return rows;
}

/** Deletes the episodes `ids` (of the groups `groups`): those left with no message. */
export async function deleteEpisodesById(
  tx: Queryable,
  ids: readonly string[],
  groups: readonly string[],
): Promise<void> {
  await tx.query('DELETE FROM episodes WHERE group_key = ANY($2::text[]) AND id = ANY($1::int8[])', [
    [...ids],
    [...groups],
  ]);
}
