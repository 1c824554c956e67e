-- Two things the append path paid for and no longer needs.
--
-- messages.conversation_id's foreign key. Its check ran once per stored message, a lookup and a
-- row lock on the conversation, from inside the very statement that had just upserted and locked
-- that conversation (appendMessages numbers messages from conversations.next_seq, so a message
-- never exists without its conversation row; the purge deletes a group's messages before its
-- conversations, under the same row locks). The import, the one other writer, checks and holds a
-- message's conversation itself (import-writer.ts). Measured on batches of 740 messages: 70 µs of
-- server CPU a message with the check, 57.5 without.
ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_conversation_id_fkey;

-- search_items_restricted_idx (made in 0012) served the NOT EXISTS that keyword search needed while
-- it read the search_keywords copy; 0026 removed both, and no query tests for a restricted row alone.
DROP INDEX IF EXISTS search_items_restricted_idx;
