-- A KAOS session's key becomes its shard column, conversation_id (docs/store.md): a conversation is
-- its own group, named `kaos_` and the id of the event that created that incarnation, so
-- (agent, session_id) does not say which shard holds the session, and a key on it cannot hold on
-- a table distributed by conversation. That key moves to a table of its own, distributed by agent:
-- it finds a session's conversation from the pair KAOS clients name it by, and it is what keeps
-- one live session per agent and session id. The writers change both in one transaction.
CREATE TABLE kaos_session_names (
  agent           text NOT NULL,
  session_id      text NOT NULL,
  conversation_id text NOT NULL,
  PRIMARY KEY (agent, session_id)
);
-- a purge finds a session's name by its conversation (no key: it is not the table's shard column)
CREATE INDEX kaos_session_names_conversation_idx ON kaos_session_names (conversation_id);

INSERT INTO kaos_session_names (agent, session_id, conversation_id)
  SELECT agent, session_id, conversation_id FROM kaos_sessions;

-- the events' foreign key names the unique key on conversation_id: it goes first, and comes back
-- on the new primary key
ALTER TABLE kaos_events DROP CONSTRAINT kaos_events_conversation_id_fkey;
ALTER TABLE kaos_sessions
  DROP CONSTRAINT kaos_sessions_pkey,
  DROP CONSTRAINT kaos_sessions_conversation_id_key,
  ADD CONSTRAINT kaos_sessions_pkey PRIMARY KEY (conversation_id);
ALTER TABLE kaos_events ADD CONSTRAINT kaos_events_conversation_id_fkey
  FOREIGN KEY (conversation_id) REFERENCES kaos_sessions (conversation_id) ON DELETE CASCADE;
-- in place of the old key's index: listings of one agent that name a session id
CREATE INDEX kaos_sessions_agent_session_idx ON kaos_sessions (agent, session_id);

-- The session's foreign key to its conversation is left as it is: 0038 joined it on
-- (conversation_id, conversation_id) -> conversations (group_key, id).

-- Distributed by agent, not by a conversation group: no statement joins it with a group's tables
-- and no foreign key links them, so where its shards sit beside theirs does not matter.
INSERT INTO store_distribution (table_name, kind, shard_column) VALUES
  ('kaos_session_names', 'distributed', 'agent');
