import type { Queryable } from '../../store.js';
import {
  iso,
  keyOne,
  EVICTED_WITH_GROUP,
  type LifecycleParticipant,
  type RetainPass,
} from '../../participant/participant.js';
import { addCount, familyOf, noErasureCounts } from '../../participant/erasure-counts.js';
import type { RetentionBatch } from '../../participant/retention-counts.js';
import { retentionScopeSql } from '../conversations/retention-scope.js';
import { dueByGroup } from '../../participant/due-by-group.js';
import { deleteSearchRows } from '../search/search-rows.js';
import { sourceApiOf } from '../conversations/conversation-sql.js';
import { episodeImport, episodicMemoryImport, summaryImport } from './import.js';

/**
 * Episodes: stretches of a conversation cut for extraction. One in another person's conversation
 * that holds the person's messages is not theirs: the erasure extracts it again from what is
 * left (step `sent-messages`).
 */
export const episodes: LifecycleParticipant = {
  table: 'episodes',
  within: { conversation: 'conversation_id' },
  purge: { by: 'conversations', column: 'conversation_id', counts: 'episodes', stage: 'parents' },
  notRetained: 'extracted again from what is left, or removed, with the messages they were cut from (messages)',
  notEvicted: EVICTED_WITH_GROUP,
  export: {
    kind: 'episode',
    columns: () => `id, conversation_id AS "conversationId", start_seq AS "startSeq",
      end_seq AS "endSeq", message_ids AS "messageIds", ${iso('start_time')} AS "startTime",
      ${iso('end_time')} AS "endTime", close_reason AS "closeReason", status, version,
      ${iso('created_at')} AS "createdAt", ${iso('updated_at')} AS "updatedAt"`,
    keys: ['id'],
    keyOf: keyOne('id'),
  },
  import: episodeImport,
};

/**
 * The memories extracted from episodes. One kept for the person (its user_id) in a conversation
 * not theirs is theirs, exported with its episode (which its import needs).
 */
export const episodicMemories: LifecycleParticipant = {
  table: 'episodic_memories',
  within: { conversation: 'conversation_id' },
  named: (person) => `episodic_memories.user_id = ${person}`,
  needs: { table: 'episodes', column: 'id', by: 'episode_id' },
  purge: { by: 'conversations', column: 'conversation_id', counts: 'episodicMemories', stage: 'indexed' },
  notEvicted: EVICTED_WITH_GROUP,
  retain: {
    kind: 'memories',
    agedBy: ['created_at'],
    overridable: true,
    goes: { takes: ['search_items'], rows: (tx, pass) => expireMemories(tx, pass) },
  },
  export: {
    kind: 'episodic_memory',
    columns: () => `id, episode_id AS "episodeId", conversation_id AS "conversationId",
      version, user_id AS "userId", title, content, ${iso('occurred_at')} AS "occurredAt",
      ${iso('ended_at')} AS "endedAt", message_ids AS "messageIds", participants, extractor,
      ${iso('superseded_at')} AS "supersededAt", ${iso('created_at')} AS "createdAt"`,
    keys: ['id'],
    keyOf: keyOne('id'),
  },
  import: episodicMemoryImport,
  erase: {
    ownData: 'memories',
    named: async (tx, userId) => {
      const counts = noErasureCounts();
      const memories = await tx.query<{ id: string; group_key: string; source_api: string | null }>(
        `DELETE FROM episodic_memories WHERE ${episodicMemories.named!('$1')}
         RETURNING id, group_key, ${sourceApiOf('episodic_memories.group_key', 'episodic_memories.conversation_id')} AS source_api`,
        [userId],
      );
      for (const m of memories.rows) addCount(counts, familyOf(m.source_api), 'postgres', 'episodicMemories', 1);
      const searchRows = await deleteSearchRows(tx, 'episodic_memory', memoryRowKeys(memories.rows));
      addCount(counts, 'evermemos', 'postgres', 'memorySearchRows', searchRows);
      return counts;
    },
  },
};

/**
 * The Memory Agent's rolling summaries. Only finished ones are exported: one being made, or failed,
 * is the target's summarizer's to make again. In another person's conversation they drew on the
 * person's words with everyone else's: the erasure drops them to be made anew, they are not theirs.
 */
export const summaries: LifecycleParticipant = {
  table: 'memory',
  within: { conversation: 'conversation_id' },
  // one statement for the whole version chain: its self-reference is checked at the statement's end
  purge: { by: 'conversations', column: 'conversation_id', counts: 'summaries', stage: 'leaves' },
  notEvicted: EVICTED_WITH_GROUP,
  retain: {
    kind: 'summaries',
    agedBy: ['created_at'],
    overridable: true,
    goes: { takes: [], rows: (tx, pass) => expireSummaries(tx, pass) },
  },
  export: {
    kind: 'summary',
    columns: () => `memory_id AS id, conversation_id AS "conversationId", memory_text AS text,
      start_sequence AS "startSequence", end_sequence AS "endSequence", base_memory_id AS "baseId",
      ${iso('created_at')} AS "createdAt", ${iso('updated_at')} AS "updatedAt",
      generation_time_ms AS "generationTimeMs"`,
    only: `memory.status = 'completed'`,
    keys: ['memory_id'],
    keyOf: keyOne('id'),
  },
  import: summaryImport,
};

const memoryRowKeys = (rows: ReadonlyArray<{ id: string; group_key: string }>) =>
  rows.map((r) => ({ groupKey: r.group_key, itemId: r.id }));

/**
 * A pass goes on while a batch found a full batch due and took some of it; one whose rows other
 * transactions all hold ends the pass and leaves them to the next run, as SKIP LOCKED did.
 */
const finishedAfter = (o: RetainPass, found: number, taken: number) => found < o.batchSize || taken === 0;

/** Episodic memories made before the cutoff (every version), with their search rows and vectors. */
async function expireMemories(tx: Queryable, o: RetainPass): Promise<RetentionBatch> {
  const params: unknown[] = [o.cutoff];
  const { taken, found } = await dueByGroup(
    tx,
    {
      table: 'episodic_memories',
      shard: 'group_key',
      key: 'id',
      order: 'id',
      where: `created_at < $1 AND ${retentionScopeSql('conversation_id', params, o.scope)}`,
      params,
      limit: o.batchSize,
    },
    async (group, ids) =>
      (
        await tx.query<{ id: string; current: boolean; group_key: string }>(
          `DELETE FROM episodic_memories WHERE group_key = $1 AND id IN (
             SELECT id FROM episodic_memories WHERE group_key = $1 AND id = ANY($2::text[]) AND created_at < $3
             FOR UPDATE SKIP LOCKED)
           RETURNING id, superseded_at IS NULL AS current, group_key`,
          [group, ids, o.cutoff],
        )
      ).rows,
  );
  const searchRows = await deleteSearchRows(tx, 'episodic_memory', memoryRowKeys(taken));
  return {
    counts: { episodicMemories: taken.length, searchRows },
    finished: finishedAfter(o, found, taken.length),
    conversationIds: [],
  };
}

/**
 * Rolling summaries made before the cutoff (a summary being made is left to finish). A newer
 * summary built on a removed one keeps its text and loses only the link: its chain starts there.
 */
async function expireSummaries(tx: Queryable, o: RetainPass): Promise<RetentionBatch> {
  const params: unknown[] = [o.cutoff];
  const { taken, found } = await dueByGroup(
    tx,
    {
      table: 'memory',
      shard: 'group_key',
      key: 'memory_id',
      order: 'memory_id',
      where: `created_at < $1 AND status <> 'processing' AND ${retentionScopeSql('conversation_id', params, o.scope)}`,
      params,
      limit: o.batchSize,
    },
    async (group, ids) =>
      (
        await tx.query<{ memory_id: string }>(
          `SELECT memory_id FROM memory
           WHERE group_key = $1 AND memory_id = ANY($2::int8[]) AND created_at < $3 AND status <> 'processing'
           FOR UPDATE SKIP LOCKED`,
          [group, ids, o.cutoff],
        )
      ).rows,
  );
  const ids = taken.map((r) => r.memory_id);
  await tx.query(
    'UPDATE memory SET base_memory_id = NULL WHERE base_memory_id = ANY($1::int8[]) AND NOT (memory_id = ANY($1::int8[]))',
    [ids],
  );
  const gone = await tx.query('DELETE FROM memory WHERE memory_id = ANY($1::int8[])', [ids]);
  return {
    counts: { summaries: gone.rowCount ?? 0 },
    finished: finishedAfter(o, found, taken.length),
    conversationIds: [],
  };
}
