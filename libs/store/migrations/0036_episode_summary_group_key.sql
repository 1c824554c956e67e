-- Episodes, episodic memories and summaries carry their conversation's group as group_key, the
-- shard column (docs/store.md), as 0037 did for conversations and messages. Every insert takes
-- it from the row's conversation. Keys are left as they are: they change once conversations'
-- own key holds the group.
--
-- A fresh database runs this before 0037, an existing one after it: the group is computed as
-- 0037 computes conversations.group_key, not read from it, so both orders give the same value.
ALTER TABLE episodes ADD COLUMN group_key text;
UPDATE episodes e SET group_key = COALESCE(c.group_id, c.id) FROM conversations c WHERE c.id = e.conversation_id;
-- episodes and summaries keep a foreign key to their conversation: every row finds one
ALTER TABLE episodes ALTER COLUMN group_key SET NOT NULL;

ALTER TABLE memory ADD COLUMN group_key text;
UPDATE memory m SET group_key = COALESCE(c.group_id, c.id) FROM conversations c WHERE c.id = m.conversation_id;
ALTER TABLE memory ALTER COLUMN group_key SET NOT NULL;

ALTER TABLE episodic_memories ADD COLUMN group_key text;
UPDATE episodic_memories em SET group_key = COALESCE(c.group_id, c.id)
  FROM conversations c WHERE c.id = em.conversation_id;
-- a memory's key is to its episode, not its conversation: one naming no stored conversation is
-- its own group, as a message is in 0037
UPDATE episodic_memories SET group_key = conversation_id WHERE group_key IS NULL;
ALTER TABLE episodic_memories ALTER COLUMN group_key SET NOT NULL;
