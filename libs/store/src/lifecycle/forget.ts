import type { Queryable, Store } from '../store.js';
import type { ForgetResult } from '../participant/participant.js';
import { conversationsOfMessagesMatching, deleteMessagesMatching } from '../tables/conversations/message-sql.js';
import { lockEpisodes } from '../tables/memories/episodes.js';
import {
  type AffectedEpisode,
  deleteEpisodesById,
  deleteMemoriesOfEpisodes,
  lockAffectedEpisodes,
  messagesOfEpisodeOrMemory,
  reopenEpisodes,
} from '../tables/memories/forgotten-messages.js';
import { visibleTo } from '../tables/memberships/conversation-access.js';
import { deleteSearchRows } from '../tables/search/search-rows.js';
import { requeueVectorsWithContext } from '../tables/search/unembedded-queue.js';

export type { ForgetResult };

export interface ForgetFilter {
  /** An episode's id, or a memory's id meaning its episode: that episode's messages. */
  readonly eventId?: string | undefined;
  readonly messageId?: string | undefined;
  readonly conversationId?: string | undefined;
  readonly senderId?: string | undefined;
  /** A condition on the messages with one parameter (`sql` given its placeholder): a table's definition of whose they are. */
  readonly matching?: { readonly sql: (param: string) => string; readonly value: unknown } | undefined;
  /** A person's id: only conversations they manage or own are touched. */
  readonly managedBy?: string | undefined;
  /** Only messages whose time (created_at) is before this one: what a retention period expired. */
  readonly before?: Date | undefined;
}

/**
 * Deletes the messages matching every given filter, their search rows, and every memory derived
 * from them, in one transaction. An episode that keeps some messages gets a new version and is
 * extracted again without the deleted ones (an extraction running meanwhile is discarded by the
 * version check); an episode left empty is removed. Holds the episode lock of each conversation
 * touched (in id order, so two deletions cannot deadlock), so boundary detection never sees a
 * half-deleted conversation.
 */
export async function forgetMessages(store: Store, filter: ForgetFilter): Promise<ForgetResult> {
  return store.transaction((tx) => forgetMessagesIn(tx, filter));
}

/** forgetMessages inside a transaction the caller holds (the converter records the outcome in it). */
export async function forgetMessagesIn(tx: Queryable, filter: ForgetFilter): Promise<ForgetResult> {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const [column, value] of [
    ['message_id', filter.messageId],
    ['conversation_id', filter.conversationId],
    ['sender_id', filter.senderId],
  ] as const) {
    if (value === undefined) continue;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  }
  if (filter.eventId !== undefined) where.push(messagesOfEpisodeOrMemory(params, filter.eventId));
  if (filter.matching !== undefined) where.push(`(${filter.matching.sql(`$${params.push(filter.matching.value)}`)})`);
  if (filter.before !== undefined) where.push(`created_at < $${params.push(filter.before)}`);
  if (where.length === 0) throw new Error('forgetMessages needs at least one filter');
  if (filter.managedBy !== undefined) where.push(visibleTo('conversation_id', params, filter.managedBy, 'manager'));
  const filterSql = where.join(' AND ');

  for (const conversationId of await conversationsOfMessagesMatching(tx, filterSql, params))
    await lockEpisodes(tx, conversationId);
  const deleted = await deleteMessagesMatching(tx, filterSql, params);
  if (deleted.length === 0)
    return {
      deletedMessages: 0,
      deletedMemories: 0,
      episodesReopened: 0,
      episodesDeleted: 0,
      deletedMessageSearchRows: 0,
      deletedMemorySearchRows: 0,
    };
  const deletedItemIds = deleted.map((r) => String(r.id));
  const deletedMessageSearchRows = await deleteSearchRows(
    tx,
    'message',
    deleted.map((r) => ({ groupKey: r.group_key, itemId: String(r.id) })),
  );
  // A turn embedded after a deleted one carries its words in its vector: the vector goes now, and
  // the row is left for the indexer's sweep (as an imported row is) to embed again after the turn
  // now before it. Until then the turn ranks as one whose vector has not arrived.
  await requeueVectorsWithContext(tx, deletedItemIds);

  // The episodes holding any deleted message, with what they keep, locked before their memories
  // are looked for: an extraction storing an episode's memories holds its row, so this waits for it
  // and then sees (and removes) what it stored, instead of missing memories committed a moment later.
  const affected = await lockAffectedEpisodes(tx, deleted);
  const episodeIds = affected.map((e) => e.id);
  const episodeGroups = [...new Set(affected.map((e) => e.groupKey))];
  let deletedMemories = 0;
  let deletedMemorySearchRows = 0;
  if (episodeIds.length > 0) {
    const memories = await deleteMemoriesOfEpisodes(tx, episodeIds, episodeGroups);
    deletedMemories = memories.filter((m) => m.current).length;
    deletedMemorySearchRows = await deleteSearchRows(
      tx,
      'episodic_memory',
      memories.map((m) => ({ groupKey: m.group_key, itemId: m.id })),
    );
  }
  const emptied = affected.filter((e) => e.remaining === null);
  const kept = affected.filter((e): e is AffectedEpisode & { remaining: string[] } => e.remaining !== null);
  if (emptied.length > 0)
    await deleteEpisodesById(
      tx,
      emptied.map((e) => e.id),
      [...new Set(emptied.map((e) => e.groupKey))],
    );
  if (kept.length > 0) await reopenEpisodes(tx, kept);
  return {
    deletedMessages: deleted.length,
    deletedMemories,
    episodesReopened: kept.length,
    episodesDeleted: emptied.length,
    deletedMessageSearchRows,
    deletedMemorySearchRows,
  };
}
