-- The conversation group as a real column (docs/store.md): the shard key a distributed layout
-- splits conversations and messages by, and what COALESCE(group_id, id) computes today. Every
-- insert writes it: a conversation's own id when it is its own group, its root's when it is a
-- memory-service fork; a message takes its conversation's. group_id never changes once written,
-- so neither does group_key.
ALTER TABLE conversations ADD COLUMN group_key text;
UPDATE conversations SET group_key = COALESCE(group_id, id);
ALTER TABLE conversations ALTER COLUMN group_key SET NOT NULL;

ALTER TABLE messages ADD COLUMN group_key text;
UPDATE messages m SET group_key = COALESCE(c.group_id, c.id) FROM conversations c WHERE c.id = m.conversation_id;
-- messages keep no foreign key to their conversation (0026): one without a row is its own group
UPDATE messages SET group_key = conversation_id WHERE group_key IS NULL;
ALTER TABLE messages ALTER COLUMN group_key SET NOT NULL;
