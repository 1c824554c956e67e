-- Reads of a group's conversations (a memory-service group's forks, an admin's group view, the
-- purge) filter on the shard column, group_key, where they computed COALESCE(group_id, id),
-- which no index could serve. This index serves them in one node's table and within a shard.
CREATE INDEX IF NOT EXISTS conversations_group_key_idx ON conversations (group_key);
