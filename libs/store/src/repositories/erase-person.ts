import type { Queryable } from '../store.js';
import { forgetMessagesIn } from './forget.js';
import { purgeConversationGroups, type PurgeCounts } from './purge-conversations.js';
import { addCount, familyOf, noErasureCounts, type ErasureCounts, type ErasureFamily } from './erasure-counts.js';

/**
 * The database side of erasing a person, as batches the erasure job runs one transaction at a
 * time (see erasure-runner.ts for the order). Each batch finds what is still there, so a batch
 * redone after a crash finds nothing twice. What a person's data is: docs/your-users-data.md.
 */
export interface ErasureBatch {
  readonly counts: ErasureCounts;
  /** False while this step may have more to do (run it again). */
  readonly finished: boolean;
  /** Conversations removed whole, whose response streams (outside the database) are to be discarded. */
  readonly conversationIds: readonly string[];
}

/**
 * The conversation groups that are the person's whole: owned, their private chat, their KAOS
 * sessions. A KAOS session's user id stays what its agent named when the session changes hands: a
 * session someone else owns now (an ownership transfer) is that owner's, and only the person's
 * turns in it go (step `sent-messages`). One nobody owns (a direct producer's, or made with
 * authentication off) is taken by its user id.
 */
function ownedGroupsSql(limit: string): string {
  return `SELECT g.group_id, (SELECT c.source_api FROM conversations c WHERE c.id = g.group_id) AS source_api FROM (
      SELECT group_id FROM conversation_memberships WHERE user_id = $1 AND access_level = 'owner'
      UNION SELECT COALESCE(group_id, id) FROM conversations WHERE id = 'private:' || $1 OR group_id = 'private:' || $1
      UNION SELECT COALESCE(c.group_id, c.id) FROM kaos_sessions k JOIN conversations c ON c.id = k.conversation_id
             WHERE k.user_id = $1
               AND NOT EXISTS (SELECT 1 FROM conversation_memberships o WHERE o.group_id = COALESCE(c.group_id, c.id)
                                 AND o.access_level = 'owner' AND o.user_id <> $1)
    ) g ORDER BY g.group_id LIMIT ${limit}`;
}

/**
 * Step `owned-conversations`: up to `batchSize` of the person's own conversation groups, removed
 * whole with everything made from them (purgeConversationGroups): every message in them, whoever
 * wrote it, their forks, episodes, memories, summaries, search rows and vectors, KAOS events, ARK
 * records and relayed chunks, memberships.
 */
export async function eraseOwnedConversations(tx: Queryable, userId: string, batchSize: number): Promise<ErasureBatch> {
  const { rows } = await tx.query<{ group_id: string; source_api: string | null }>(ownedGroupsSql('$2'), [
    userId,
    batchSize,
  ]);
  const counts = noErasureCounts();
  const byFamily = new Map<ErasureFamily, string[]>();
  for (const r of rows) {
    const family = familyOf(r.source_api);
    byFamily.set(family, [...(byFamily.get(family) ?? []), r.group_id]);
  }
  const conversationIds: string[] = [];
  for (const [family, groups] of byFamily) {
    const purged = await purgeConversationGroups(tx, groups);
    addPurgeCounts(counts, family, purged.counts);
    conversationIds.push(...purged.conversationIds);
  }
  return { counts, finished: rows.length < batchSize, conversationIds };
}

function addPurgeCounts(counts: ErasureCounts, family: ErasureFamily, purged: PurgeCounts): void {
  for (const [kind, n] of Object.entries(purged) as [keyof PurgeCounts, number][]) {
    if (kind === 'summaries') addCount(counts, 'memory-agent', 'postgres', 'summaries', n);
    else addCount(counts, family, 'postgres', kind === 'groups' ? 'conversationGroups' : kind, n);
  }
}

/**
 * Step `sent-messages`: in up to `batchSize` conversations of other people, the messages the
 * person wrote, with their search rows and vectors; the episodes holding them are extracted again
 * from the other messages (their memories removed now) or removed when nothing is left; the
 * rolling summaries of those conversations, and the agents' summaries in memory-service's
 * summary channel, drew on the person's words and are removed (the next message summarizes anew).
 */
export async function eraseSentMessages(tx: Queryable, userId: string, batchSize: number): Promise<ErasureBatch> {
  const { rows } = await tx.query<{ conversation_id: string; source_api: string }>(
    `SELECT DISTINCT m.conversation_id, c.source_api FROM messages m JOIN conversations c ON c.id = m.conversation_id
     WHERE m.sender_id = $1 ORDER BY m.conversation_id LIMIT $2`,
    [userId, batchSize],
  );
  const counts = noErasureCounts();
  for (const { conversation_id: conversationId, source_api } of rows) {
    const family = familyOf(source_api);
    // In a KAOS session the person's turn is an event too, the message's id its event id: one thing
    // said, two rows (a session someone else owns now still has the person's turns).
    const events = await tx.query(
      `DELETE FROM kaos_events e WHERE e.conversation_id = $1
         AND e.event_id IN (SELECT message_id FROM messages WHERE conversation_id = $1 AND sender_id = $2)`,
      [conversationId, userId],
    );
    addCount(counts, family, 'postgres', 'kaosEvents', events.rowCount ?? 0);
    const forgotten = await forgetMessagesIn(tx, { conversationId, senderId: userId });
    addCount(counts, family, 'postgres', 'messageSearchRows', forgotten.deletedMessageSearchRows);
    addCount(counts, family, 'postgres', 'memorySearchRows', forgotten.deletedMemorySearchRows);
    addCount(counts, family, 'postgres', 'messages', forgotten.deletedMessages);
    addCount(counts, family, 'postgres', 'episodicMemories', forgotten.deletedMemories);
    addCount(counts, family, 'postgres', 'episodesRebuilt', forgotten.episodesReopened);
    addCount(counts, family, 'postgres', 'episodes', forgotten.episodesDeleted);
    const summaries = await tx.query('DELETE FROM memory WHERE conversation_id = $1', [conversationId]);
    addCount(counts, 'memory-agent', 'postgres', 'summaries', summaries.rowCount ?? 0);
    const agentSummaries = await tx.query<{ message_id: string }>(
      `SELECT message_id FROM messages WHERE conversation_id = $1 AND metadata->'ms'->>'channel' = 'summary'`,
      [conversationId],
    );
    for (const { message_id: messageId } of agentSummaries.rows) {
      const gone = await forgetMessagesIn(tx, { conversationId, messageId });
      addCount(counts, family, 'postgres', 'agentSummaries', gone.deletedMessages);
      addCount(counts, family, 'postgres', 'episodicMemories', gone.deletedMemories);
      addCount(counts, family, 'postgres', 'messageSearchRows', gone.deletedMessageSearchRows);
      addCount(counts, family, 'postgres', 'memorySearchRows', gone.deletedMemorySearchRows);
    }
  }
  return { counts, finished: rows.length < batchSize, conversationIds: [] };
}

/**
 * Step `keyed-records`: what names the person outside messages: the memories kept for them
 * (episodic_memories.user_id) with their search rows, their entry in EverMemOS group metadata
 * (user_details, rewritten without it), their memberships in other people's conversations, the
 * ownership transfers they are party to.
 */
export async function eraseKeyedRecords(tx: Queryable, userId: string): Promise<ErasureBatch> {
  const counts = noErasureCounts();
  const memories = await tx.query<{ id: string; source_api: string | null }>(
    `DELETE FROM episodic_memories em WHERE em.user_id = $1
     RETURNING em.id, (SELECT c.source_api FROM conversations c WHERE c.id = em.conversation_id) AS source_api`,
    [userId],
  );
  for (const m of memories.rows) addCount(counts, familyOf(m.source_api), 'postgres', 'episodicMemories', 1);
  const memoryRows = await tx.query(
    `DELETE FROM search_items WHERE kind = 'episodic_memory' AND item_id = ANY($1::text[])`,
    [memories.rows.map((m) => m.id)],
  );
  addCount(counts, 'evermemos', 'postgres', 'memorySearchRows', memoryRows.rowCount ?? 0);
  const metas = await tx.query(
    `UPDATE conversation_meta SET user_details = user_details - $1, updated_at = now() WHERE user_details ? $1`,
    [userId],
  );
  // the default config's participants too (what groups without metadata fall back to)
  const defaults = await tx.query(
    `UPDATE conversation_meta_default SET user_details = user_details - $1, updated_at = now() WHERE user_details ? $1`,
    [userId],
  );
  addCount(counts, 'evermemos', 'postgres', 'groupMetadataRewritten', (metas.rowCount ?? 0) + (defaults.rowCount ?? 0));
  const memberships = await tx.query<{ source_api: string | null }>(
    `DELETE FROM conversation_memberships m WHERE m.user_id = $1
     RETURNING (SELECT c.source_api FROM conversations c WHERE c.id = m.group_id) AS source_api`,
    [userId],
  );
  for (const m of memberships.rows) addCount(counts, familyOf(m.source_api), 'postgres', 'memberships', 1);
  // the record of memberships they once had and lost (who had which level until when) names them too
  const removals = await tx.query<{ source_api: string | null }>(
    `DELETE FROM conversation_membership_removals r WHERE r.user_id = $1
     RETURNING (SELECT c.source_api FROM conversations c WHERE c.id = r.group_id) AS source_api`,
    [userId],
  );
  for (const r of removals.rows) addCount(counts, familyOf(r.source_api), 'postgres', 'membershipRemovals', 1);
  // A request's recorded answer (kept for status lookups until the purge) may name them: their
  // private chat as its group, or their id in the answer. JSON text quotes the id as to_json does.
  const outcomes = await tx.query<{ kind: string }>(
    `DELETE FROM request_outcomes
     WHERE group_id = 'private:' || $1 OR strpos(result::text, to_json($1::text)::text) > 0
     RETURNING kind`,
    [userId],
  );
  for (const o of outcomes.rows)
    addCount(counts, o.kind === 'conversation' ? 'memory-service' : 'evermemos', 'postgres', 'requestOutcomes', 1);
  const transfers = await tx.query(
    'DELETE FROM conversation_ownership_transfers WHERE from_user_id = $1 OR to_user_id = $1',
    [userId],
  );
  addCount(counts, 'memory-service', 'postgres', 'transfers', transfers.rowCount ?? 0);
  return { counts, finished: true, conversationIds: [] };
}

/** Whether anything of the person is still stored (what the three steps above remove). */
export async function personRemains(q: Queryable, userId: string): Promise<boolean> {
  const { rows } = await q.query<{ remains: boolean }>(
    `SELECT EXISTS (${ownedGroupsSql('1')})
         OR EXISTS (SELECT 1 FROM messages WHERE sender_id = $1)
         OR EXISTS (SELECT 1 FROM episodic_memories WHERE user_id = $1)
         OR EXISTS (SELECT 1 FROM conversation_meta WHERE user_details ? $1)
         OR EXISTS (SELECT 1 FROM conversation_meta_default WHERE user_details ? $1)
         OR EXISTS (SELECT 1 FROM conversation_memberships WHERE user_id = $1)
         OR EXISTS (SELECT 1 FROM conversation_membership_removals WHERE user_id = $1)
         OR EXISTS (SELECT 1 FROM request_outcomes
                    WHERE group_id = 'private:' || $1 OR strpos(result::text, to_json($1::text)::text) > 0)
         OR EXISTS (SELECT 1 FROM conversation_ownership_transfers WHERE from_user_id = $1 OR to_user_id = $1) AS remains`,
    [userId],
  );
  return rows[0]!.remains;
}
