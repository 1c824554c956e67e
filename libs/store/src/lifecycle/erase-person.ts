import type { Queryable } from '../store.js';
import { forgetMessagesIn } from './forget.js';
import { purgeConversationGroups, type PurgeCounts } from './purge-conversations.js';
import {
  addCount,
  addErasureCounts,
  familyOf,
  noErasureCounts,
  type ErasureCounts,
  type ErasureFamily,
  type ErasureBatch,
} from '../participant/erasure-counts.js';
import { namedSql, personGroupsSql } from './person-rows.js';
import { PARTICIPANTS, participant } from './registry.js';
import { rootFamiliesOf } from '../tables/conversations/conversation-sql.js';
import { agentSummaryMessageIds, conversationsOfMessagesWhere } from '../tables/conversations/message-sql.js';
import { deleteKaosEventsWhere } from '../tables/kaos/kaos-sql.js';
import { deleteSummariesOf } from '../tables/memories/summary-memory.js';

/** The groups that are the person's whole (personGroupsSql, which the export reads too). */
const ownedGroupsSql = (limit: string) =>
  `SELECT g.group_id FROM (${personGroupsSql('$1')}) g ORDER BY g.group_id LIMIT ${limit}`;

/**
 * Up to `limit` of the person's whole groups, in order, with their family: the source of the
 * group's root. Read in two statements: Citus runs the union of the person's groups (each part
 * on other shards) as a subplan, which a subquery correlated with it cannot then read.
 */
async function ownedGroups(
  tx: Queryable,
  userId: string,
  limit: number,
): Promise<Array<{ group_id: string; source_api: string | null }>> {
  const { rows } = await tx.query<{ group_id: string }>(ownedGroupsSql('$2'), [userId, limit]);
  if (rows.length === 0) return [];
  const groups = rows.map((r) => r.group_id);
  const family = await rootFamiliesOf(tx, groups);
  return groups.map((group_id) => ({ group_id, source_api: family.get(group_id) ?? null }));
}

/**
 * Step `owned-conversations`: up to `batchSize` of the person's own conversation groups, removed
 * whole with everything made from them (purgeConversationGroups): every message in them, whoever
 * wrote it, their forks, episodes, memories, summaries, search rows and vectors, KAOS events, ARK
 * records and relayed chunks, memberships.
 */
export async function eraseOwnedConversations(tx: Queryable, userId: string, batchSize: number): Promise<ErasureBatch> {
  const rows = await ownedGroups(tx, userId, batchSize);
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
  const sent = participant('messages');
  const { rows } = await tx.query<{ conversation_id: string; source_api: string }>(
    conversationsOfMessagesWhere(namedSql(sent, '$1'), '$2'),
    [userId, batchSize],
  );
  const counts = noErasureCounts();
  for (const { conversation_id: conversationId, source_api } of rows) {
    const family = familyOf(source_api);
    // In a KAOS session the person's turn is an event too, the message's id its event id: one thing
    // said, two rows (a session someone else owns now still has the person's turns).
    const events = await deleteKaosEventsWhere(
      tx,
      conversationId,
      (param) => namedSql(participant('kaos_events'), param),
      userId,
    );
    addCount(counts, family, 'postgres', 'kaosEvents', events);
    const forgotten = await forgetMessagesIn(tx, { conversationId, matching: { sql: sent.named!, value: userId } });
    addCount(counts, family, 'postgres', 'messageSearchRows', forgotten.deletedMessageSearchRows);
    addCount(counts, family, 'postgres', 'memorySearchRows', forgotten.deletedMemorySearchRows);
    addCount(counts, family, 'postgres', 'messages', forgotten.deletedMessages);
    addCount(counts, family, 'postgres', 'episodicMemories', forgotten.deletedMemories);
    addCount(counts, family, 'postgres', 'episodesRebuilt', forgotten.episodesReopened);
    addCount(counts, family, 'postgres', 'episodes', forgotten.episodesDeleted);
    addCount(counts, 'memory-agent', 'postgres', 'summaries', await deleteSummariesOf(tx, conversationId));
    for (const messageId of await agentSummaryMessageIds(tx, conversationId)) {
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
 * Step `keyed-records`: what names the person outside messages and their own groups, each table's
 * named rows as its lifecycle participant removes or de-identifies them: the memories kept for them
 * (episodic_memories.user_id) with their search rows, and the rows others wrote about them
 * (memberships, removals, transfers, request outcomes, group metadata entries).
 */
export async function eraseKeyedRecords(tx: Queryable, userId: string): Promise<ErasureBatch> {
  let counts = noErasureCounts();
  for (const p of PARTICIPANTS) if (p.erase?.named) counts = addErasureCounts(counts, await p.erase.named(tx, userId));
  return { counts, finished: true, conversationIds: [] };
}

/** What of the person's own data a final check may find, as the receipt's reason names it. */
export type OwnDataKind = 'conversations' | 'messages' | 'memories';

/** The tables the final check holds back (their participants' `erase.heldBack`), in lock order. */
export const ERASURE_HELD_BACK: readonly string[] = PARTICIPANTS.flatMap((p) =>
  p.erase?.heldBack === undefined ? [] : [{ table: p.table, order: p.erase.heldBack }],
)
  .sort((a, b) => a.order - b.order)
  .map((p) => p.table);

/**
 * What the person wrote or owns that is still stored (empty once the steps above removed it all):
 * the conversations that are theirs whole, the messages they sent, the memories kept for them. Only
 * these hold back an erasure's completion, and only the person's own writes (or an agent writing for
 * them) make them: no other person can add to them (a person writes only as themself, and may not
 * make anyone an owner). The rows others write about the person are removed by the final check
 * itself (eraseWrittenAbout), never counted against it.
 */
export async function ownDataRemaining(q: Queryable, userId: string): Promise<OwnDataKind[]> {
  const own = PARTICIPANTS.filter((p) => p.erase?.ownData);
  const { rows } = await q.query<Record<string, boolean>>(
    `SELECT EXISTS (${ownedGroupsSql('1')}) AS conversations
            ${own.map((p) => `, EXISTS (SELECT 1 FROM ${p.table} WHERE ${namedSql(p, '$1')}) AS ${p.erase!.ownData}`).join('')}`,
    [userId],
  );
  const found = rows[0]!;
  return (['conversations', 'messages', 'memories'] as const).filter((kind) => found[kind]);
}

/**
 * Holds back every new write that could add to a person's data (conversations, messages,
 * memberships, KAOS sessions, group metadata) for the final check of an erasure: SHARE locks, taken
 * in the order the write path takes them (conversation row, then messages), so no cycle.
 */
export async function holdBackPersonWrites(tx: Queryable): Promise<void> {
  await tx.query(`LOCK TABLE ${ERASURE_HELD_BACK.join(', ')} IN SHARE MODE`);
}
