import { iso, keyTwo, EVICTED_WITH_GROUP, type LifecycleParticipant } from '../../participant/participant.js';
import { expireSaid } from '../conversations/said-retention.js';
import { messagesSentBy } from '../conversations/conversation-sql.js';
import { hasOwner } from '../memberships/membership-sql.js';
import { kaosEventImport, kaosSessionImport } from './import.js';

/**
 * True (SQL) unless the conversation is a KAOS session no person owns: only its agent reads that
 * one (its user id may be a placeholder such as `user`), so it is in no person's own export.
 * `group` is the row's conversation group, its shard column, which the session's must equal.
 */
export const notAgentsOnly = (conversation: string, group = conversation) =>
  // a session's conversation is its own group (its foreign key says so), so the session's id is
  // also the group its owner's membership is in
  `NOT EXISTS (SELECT 1 FROM kaos_sessions ko
     WHERE ko.conversation_id = ${group} AND ko.conversation_id = ${conversation}
       AND NOT ${hasOwner('ko.conversation_id', 'km')})`;

/** KAOS sessions; one made for the person that someone else owns now is the owner's. */
export const kaosSessions: LifecycleParticipant = {
  table: 'kaos_sessions',
  within: { conversation: 'conversation_id' },
  purge: { by: 'conversations', column: 'conversation_id', counts: 'kaosSessions', stage: 'parents' },
  erase: { heldBack: 4 },
  notRetained: 'kept while its conversation is: its events and messages age out (kaos_events), it goes with its group',
  notEvicted: EVICTED_WITH_GROUP,
  export: {
    kind: 'kaos_session',
    columns: () => `agent, session_id AS "sessionId", conversation_id AS "conversationId",
      app_name AS "appName", user_id AS "userId", ord, next_event AS "nextEvent",
      ${iso('created_at')} AS "createdAt", ${iso('updated_at')} AS "updatedAt"`,
    readable: notAgentsOnly('kaos_sessions.conversation_id'),
    keys: ['agent', 'session_id'],
    keyOf: keyTwo('agent', 'sessionId'),
  },
  import: kaosSessionImport,
};

/**
 * Which conversation an agent's session id names (migration 0040): one row per live session, made
 * and deleted with it by the KAOS writers. A purge takes it with its session; it holds nothing a
 * session's row does not.
 */
export const kaosSessionNames: LifecycleParticipant = {
  table: 'kaos_session_names',
  within: { conversation: 'conversation_id' },
  // uncounted: the session's row, purged with it, is what the counts name
  purge: { by: 'conversations', column: 'conversation_id', stage: 'leaves' },
  notExported:
    "a copy of its session's agent, session id and conversation: the session's export holds them, and importing the session makes the row again",
  notRetained: 'kept while its session is, which goes with its group',
  notEvicted: EVICTED_WITH_GROUP,
};

/**
 * A KAOS session's events. The person's turn is an event and a message at once (the message's id
 * its event id): in a session not theirs, those events are theirs with the messages, and the
 * session is exported with them, as their import needs it.
 */
export const kaosEvents: LifecycleParticipant = {
  table: 'kaos_events',
  within: { conversation: 'conversation_id' },
  // not correlated, so that an export reads it as one semi-join rather than once per event
  named: (person) =>
    `(kaos_events.conversation_id, kaos_events.event_id) IN
       (${messagesSentBy(person)})`,
  needs: { table: 'kaos_sessions', column: 'conversation_id', by: 'conversation_id' },
  purge: { by: 'conversations', column: 'conversation_id', counts: 'kaosEvents', stage: 'leaves' },
  notEvicted: EVICTED_WITH_GROUP,
  retain: {
    kind: 'kaosEvents',
    agedBy: ['occurred_at'],
    overridable: true,
    goes: {
      // the session's messages with them (one thing said), and what was made of those
      takes: ['messages', 'search_items', 'episodes', 'episodic_memories', 'memory'],
      rows: (tx, pass) => expireSaid(tx, { ...pass, kaosOnly: true }),
    },
  },
  export: {
    kind: 'kaos_event',
    columns: () => `conversation_id AS "conversationId", seq, event_id AS "eventId",
      ${iso('occurred_at')} AS "occurredAt", event_type AS "eventType",
      content::text AS content, metadata::text AS metadata`,
    readable: notAgentsOnly('kaos_events.conversation_id'),
    keys: ['conversation_id', 'seq'],
    keyOf: keyTwo('conversationId', 'seq'),
  },
  import: kaosEventImport,
};
