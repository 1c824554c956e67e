import type { Queryable } from '../../store.js';
import type { RetentionScope } from '../../repositories/retention-counts.js';
import { iso, keyOne, type LifecycleParticipant } from '../participant.js';

/**
 * Every family's conversations. A person's own are exported whole; one they only have rows in
 * (a message they sent, a membership, a memory kept for them) is named in their export, not
 * described: its title and metadata are its owner's, and erasing the person leaves it.
 */
export const conversations: LifecycleParticipant = {
  table: 'conversations',
  within: { conversation: 'id' },
  root: true,
  purge: { by: 'conversations', column: 'id', counts: 'conversations', stage: 'root' },
  notRetained:
    'removed only whole: with its ARK session (ark_sessions), or once soft-deleted past RETENTION_DELETED (eviction)',
  evict: { resource: 'conversation_groups', goes: { groups: deletedGroupsSql } },
  export: {
    kind: 'conversation',
    columns: ({ whole }) => `id, source_api AS "sourceApi", group_id AS "groupId",
      next_seq AS "nextSeq", CASE WHEN ${whole} THEN title END AS title,
      CASE WHEN ${whole} THEN metadata ELSE '{}'::jsonb END AS metadata,
      ${iso('created_at')} AS "createdAt", ${iso('updated_at')} AS "updatedAt", ${iso('deleted_at')} AS "deletedAt",
      CASE WHEN forked_at_conversation_id IS NOT NULL OR fork_source_conversation_id IS NOT NULL
           THEN json_build_object('forkedAtConversationId', forked_at_conversation_id,
                                  'forkedAtMessageId', forked_at_message_id,
                                  'sourceConversationId', fork_source_conversation_id,
                                  'sourceSeq', fork_source_seq) END AS fork`,
    readable: 'conversations.deleted_at IS NULL',
    keys: ['id'],
    keyOf: keyOne('id'),
  },
};

/**
 * Groups whose every conversation was soft-deleted before the cutoff and has stored nothing since
 * (a family without soft deletion of its own, EverMemOS or ARK, keeps storing what is sent to a
 * group an admin deleted: such a group is in use again and is not evicted).
 */
function deletedGroupsSql(o: {
  cutoff: string;
  limit?: string | undefined;
  writtenSince: (conversation: string, deletedAt: string, group: string) => string;
}): string {
  return `SELECT DISTINCT c.group_key AS group_id FROM conversations c
    WHERE c.deleted_at < ${o.cutoff}
      AND NOT EXISTS (SELECT 1 FROM conversations o
                       WHERE o.group_key = c.group_key
                         AND (o.deleted_at IS NULL OR o.deleted_at >= ${o.cutoff}
                              OR ${o.writtenSince('o.id', 'o.deleted_at', 'o.group_key')}))
    ${o.limit === undefined ? '' : `ORDER BY 1 LIMIT ${o.limit}`}`;
}

/** The metadata key of a conversation's own retention period, which may shorten the setting's. */
export const RETENTION_METADATA_KEY = 'retention';

/**
 * True (SQL) for a row of a conversation in the scope: every one, or those whose metadata (their
 * own, or their group's root, so forks follow the conversation they came from) has the override.
 */
export function retentionScopeSql(column: string, params: unknown[], scope: RetentionScope): string {
  if (scope.override === undefined) return 'TRUE';
  const n = params.push(scope.override);
  // a fork's root holds its group (group_key = id): the join stays on the shard column, which Citus needs
  return `${column} IN (SELECT c.id FROM conversations c LEFT JOIN conversations r ON r.group_key = c.group_key AND r.id = c.group_id
    WHERE c.metadata->>'${RETENTION_METADATA_KEY}' = $${n} OR r.metadata->>'${RETENTION_METADATA_KEY}' = $${n})`;
}

/** The distinct overrides stored in conversations' metadata (valid or not: the caller checks them). */
export async function retentionOverrides(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ v: string }>(
    `SELECT DISTINCT metadata->>'${RETENTION_METADATA_KEY}' AS v FROM conversations
     WHERE metadata ? '${RETENTION_METADATA_KEY}' AND jsonb_typeof(metadata->'${RETENTION_METADATA_KEY}') = 'string'
     ORDER BY 1`,
  );
  return rows.map((r) => r.v);
}
