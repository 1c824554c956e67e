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
