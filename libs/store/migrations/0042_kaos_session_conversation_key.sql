-- A KAOS session's foreign key to its conversation named conversation_id twice, as
-- (conversation_id, conversation_id) -> conversations (group_key, id): a KAOS conversation is its
-- own group, so both halves of the key are its id. Citus refuses a foreign key that names a column
-- twice (the lab run of issue 48: "partition column in the same ordinal"). The session gets its
-- conversation's id a second time, as a column the database keeps equal to conversation_id, and
-- the key names the two columns: the shard column first, as in the conversation's key.
ALTER TABLE kaos_sessions ADD COLUMN conversation_key text GENERATED ALWAYS AS (conversation_id) STORED;
-- Only where 0038 has put the group in the conversations' key (a database migrated in filename
-- order always has): before it, there is nothing to refer to, and 0038 makes its own key.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'conversations_pkey'
               AND pg_get_constraintdef(oid) = 'PRIMARY KEY (id, group_key)') THEN
    ALTER TABLE kaos_sessions DROP CONSTRAINT kaos_sessions_conversation_id_fkey;
    ALTER TABLE kaos_sessions ADD CONSTRAINT kaos_sessions_conversation_id_fkey
      FOREIGN KEY (conversation_id, conversation_key) REFERENCES conversations (group_key, id);
  END IF;
END $$;
