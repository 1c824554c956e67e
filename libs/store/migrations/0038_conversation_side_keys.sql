-- The conversation-side tables' keys take their shard column, group_key (docs/store.md): a shard
-- enforces a key over its own rows only, so no key without the group can hold on a distributed
-- table. Each key is its old columns with group_key added last: a conversation has one group, so
-- the key is as unique as before, and its index still serves every lookup the old one served (by
-- id, by conversation and sequence, by conversation and message id) with no index added to the
-- tables the append writes. Ids stay unique by how they are made and by the writers' checks.
--
-- A fresh database applies 0035-0037 first, an existing one has them: both arrive here with
-- group_key filled and NOT NULL.

-- the foreign keys name the keys replaced below: they go first and come back on the new keys
ALTER TABLE episodes DROP CONSTRAINT episodes_conversation_id_fkey;
ALTER TABLE memory DROP CONSTRAINT memory_conversation_id_fkey;
ALTER TABLE memory DROP CONSTRAINT memory_base_memory_id_fkey;
ALTER TABLE episodic_memories DROP CONSTRAINT episodic_memories_episode_id_fkey;
ALTER TABLE kaos_sessions DROP CONSTRAINT kaos_sessions_conversation_id_fkey;

ALTER TABLE conversations
  DROP CONSTRAINT conversations_pkey,
  ADD CONSTRAINT conversations_pkey PRIMARY KEY (id, group_key);

ALTER TABLE messages
  DROP CONSTRAINT messages_pkey,
  ADD CONSTRAINT messages_pkey PRIMARY KEY (conversation_id, seq, group_key),
  DROP CONSTRAINT messages_conversation_id_message_id_key,
  ADD CONSTRAINT messages_conversation_id_message_id_key UNIQUE (conversation_id, message_id, group_key);

ALTER TABLE episodes
  DROP CONSTRAINT episodes_pkey,
  ADD CONSTRAINT episodes_pkey PRIMARY KEY (id, group_key),
  DROP CONSTRAINT episodes_conversation_id_start_seq_key,
  ADD CONSTRAINT episodes_conversation_id_start_seq_key UNIQUE (conversation_id, start_seq, group_key),
  ADD CONSTRAINT episodes_conversation_id_fkey FOREIGN KEY (conversation_id, group_key)
    REFERENCES conversations (id, group_key) ON DELETE CASCADE;

-- 0036 took a memory's group from its conversation; its episode's is the one its key now joins on
UPDATE episodic_memories m SET group_key = e.group_key
  FROM episodes e WHERE e.id = m.episode_id AND m.group_key <> e.group_key;
ALTER TABLE episodic_memories
  DROP CONSTRAINT episodic_memories_pkey,
  ADD CONSTRAINT episodic_memories_pkey PRIMARY KEY (id, group_key),
  ADD CONSTRAINT episodic_memories_episode_id_fkey FOREIGN KEY (episode_id, group_key)
    REFERENCES episodes (id, group_key) ON DELETE CASCADE;

-- A summary's base is an earlier summary of its conversation (claimSummary); only an import could
-- name one of another group, and such a link cannot stay within a shard: the summary keeps its
-- text and stands on its own, as an import makes one whose base it left out.
UPDATE memory m SET base_memory_id = NULL
  WHERE base_memory_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM memory b WHERE b.memory_id = m.base_memory_id AND b.group_key = m.group_key);
DROP INDEX memory_one_processing_per_conversation;
CREATE UNIQUE INDEX memory_one_processing_per_conversation ON memory (conversation_id, group_key)
  WHERE status = 'processing';
ALTER TABLE memory
  DROP CONSTRAINT memory_pkey,
  ADD CONSTRAINT memory_pkey PRIMARY KEY (memory_id, group_key),
  ADD CONSTRAINT memory_conversation_id_fkey FOREIGN KEY (conversation_id, group_key)
    REFERENCES conversations (id, group_key) ON DELETE CASCADE,
  ADD CONSTRAINT memory_base_memory_id_fkey FOREIGN KEY (base_memory_id, group_key)
    REFERENCES memory (memory_id, group_key);

-- A KAOS conversation is its own group, so its id is its group: the session joins its
-- conversation on both, which keeps the link within the shard.
ALTER TABLE kaos_sessions
  ADD CONSTRAINT kaos_sessions_conversation_id_fkey FOREIGN KEY (conversation_id, conversation_id)
    REFERENCES conversations (group_key, id);
