import { EVICTED_WITH_GROUP, iso, keyOne, keyTwo, type LifecycleParticipant } from '../../participant/participant.js';
import { notAgentsOnly } from '../kaos/lifecycle.js';
import { conversationImport, messageImport } from './import.js';
import { expireSaid } from './said-retention.js';

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
  erase: { heldBack: 1 },
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
  import: conversationImport,
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

/**
 * Every family's messages. Outside the person's groups, the ones they sent are theirs wherever
 * they are, a member or not: an agent may write an EverMemOS message with the person as its
 * sender in a group the person is not in. The erasure takes them (step `sent-messages`, which
 * also drops what was made from them); the export holds them.
 */
export const messages: LifecycleParticipant = {
  table: 'messages',
  within: { conversation: 'conversation_id' },
  named: (person) => `messages.sender_id = ${person}`,
  purge: {
    by: 'conversations',
    column: 'conversation_id',
    counts: 'messages',
    stage: 'indexed',
    storedAt: { column: 'stored_at', group: 'group_key' },
  },
  export: {
    kind: 'message',
    columns: () => `conversation_id AS "conversationId", seq, id, message_id AS "messageId",
      sender_id AS "senderId", sender_name AS "senderName", role, content,
      ${iso('created_at')} AS "createdAt", ${iso('stored_at')} AS "storedAt",
      refer_list AS "referList", metadata, source_api AS "sourceApi"`,
    // a message kept for agents only is not the person's to read, nor a session only an agent reads
    readable: `messages.audience IS NULL AND ${notAgentsOnly('messages.conversation_id', 'messages.group_key')}`,
    keys: ['conversation_id', 'seq'],
    keyOf: keyTwo('conversationId', 'seq'),
  },
  import: messageImport,
  erase: { ownData: 'messages', heldBack: 2 },
  notEvicted: EVICTED_WITH_GROUP,
  retain: {
    kind: 'messages',
    agedBy: ['created_at'],
    overridable: true,
    goes: {
      // the events that became the messages, and what was made of them (forgetMessagesIn, expireSaid)
      takes: ['kaos_events', 'search_items', 'episodes', 'episodic_memories', 'memory'],
      rows: (tx, pass) => expireSaid(tx, { ...pass, kaosOnly: false }),
    },
  },
};
