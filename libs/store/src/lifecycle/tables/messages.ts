import { iso, keyTwo, EVICTED_WITH_GROUP, type LifecycleParticipant } from '../participant.js';
import { notAgentsOnly } from './kaos.js';
import { expireSaid } from './said.js';

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
    readable: `messages.audience IS NULL AND ${notAgentsOnly('messages.conversation_id')}`,
    keys: ['conversation_id', 'seq'],
    keyOf: keyTwo('conversationId', 'seq'),
  },
  erase: { ownData: 'messages' },
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
