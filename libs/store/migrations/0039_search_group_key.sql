-- The search tables take the shard key (docs/store.md): group_key, the group of the row's
-- conversation, leads each of their keys, and the foreign keys from vectors and the embedding queue
-- to search_items join on it. Rows whose conversation row is gone (messages keep no foreign key to
-- theirs) are their own group, as 0037 has it.
--
-- The keyword statistics lose their triggers: Citus allows no trigger on a distributed table, and
-- forced on, they fail on every delete. The writers of search_items count the words themselves,
-- in the statement or transaction that writes the rows (repositories/search-rows.ts), so the
-- functions the triggers called go too. search_keyword_audience stays: it reads no table.
DROP TRIGGER search_keywords_insert ON search_items;
DROP TRIGGER search_keywords_update ON search_items;
DROP TRIGGER search_keywords_delete ON search_items;
DROP TRIGGER search_keywords_truncate ON search_items;
DROP FUNCTION search_keywords_inserted();
DROP FUNCTION search_keywords_updated();
DROP FUNCTION search_keywords_deleted();
DROP FUNCTION search_keywords_truncated();
DROP FUNCTION search_keyword_fold(integer);
DROP FUNCTION search_keyword_add(text[], text[], text[], text[], tsvector[]);
DROP FUNCTION search_keyword_uncount(text[], text[], text[], text[], tsvector[]);
DROP FUNCTION search_keyword_count(text[], text[], text[], tsvector[], integer[]);

ALTER TABLE search_vectors DROP CONSTRAINT search_vectors_kind_item_id_fkey;
ALTER TABLE search_unembedded DROP CONSTRAINT search_unembedded_kind_item_id_fkey;

ALTER TABLE search_items ADD COLUMN group_key text;
UPDATE search_items s SET group_key = c.group_key FROM conversations c WHERE c.id = s.conversation_id;
UPDATE search_items SET group_key = conversation_id WHERE group_key IS NULL;
ALTER TABLE search_items ALTER COLUMN group_key SET NOT NULL;
ALTER TABLE search_items DROP CONSTRAINT search_items_pkey;
ALTER TABLE search_items ADD CONSTRAINT search_items_pkey PRIMARY KEY (group_key, kind, item_id);

-- a vector's group is its item's: both name the same conversation
ALTER TABLE search_vectors ADD COLUMN group_key text;
UPDATE search_vectors v SET group_key = s.group_key FROM search_items s WHERE s.kind = v.kind AND s.item_id = v.item_id;
ALTER TABLE search_vectors ALTER COLUMN group_key SET NOT NULL;
ALTER TABLE search_vectors DROP CONSTRAINT search_vectors_pkey;
ALTER TABLE search_vectors ADD CONSTRAINT search_vectors_pkey PRIMARY KEY (group_key, kind, item_id);
ALTER TABLE search_vectors ADD CONSTRAINT search_vectors_item_fkey FOREIGN KEY (group_key, kind, item_id)
  REFERENCES search_items (group_key, kind, item_id) ON DELETE CASCADE;

-- the queue names no conversation: its item's row says the group
ALTER TABLE search_unembedded ADD COLUMN group_key text;
UPDATE search_unembedded u SET group_key = s.group_key FROM search_items s WHERE s.kind = u.kind AND s.item_id = u.item_id;
ALTER TABLE search_unembedded ALTER COLUMN group_key SET NOT NULL;
ALTER TABLE search_unembedded DROP CONSTRAINT search_unembedded_pkey;
ALTER TABLE search_unembedded ADD CONSTRAINT search_unembedded_pkey PRIMARY KEY (group_key, kind, item_id);
ALTER TABLE search_unembedded ADD CONSTRAINT search_unembedded_item_fkey FOREIGN KEY (group_key, kind, item_id)
  REFERENCES search_items (group_key, kind, item_id) ON DELETE CASCADE;

ALTER TABLE search_keyword_pending ADD COLUMN group_key text;
UPDATE search_keyword_pending p SET group_key = s.group_key FROM search_items s
 WHERE s.kind = p.kind AND s.item_id = p.item_id;
UPDATE search_keyword_pending SET group_key = conversation_id WHERE group_key IS NULL;
ALTER TABLE search_keyword_pending ALTER COLUMN group_key SET NOT NULL;
ALTER TABLE search_keyword_pending DROP CONSTRAINT search_keyword_pending_pkey;
ALTER TABLE search_keyword_pending ADD CONSTRAINT search_keyword_pending_pkey PRIMARY KEY (group_key, kind, item_id);

-- the counts are per conversation, and a conversation's group never changes (0037)
ALTER TABLE search_keyword_totals ADD COLUMN group_key text;
UPDATE search_keyword_totals t SET group_key = c.group_key FROM conversations c WHERE c.id = t.conversation_id;
UPDATE search_keyword_totals SET group_key = conversation_id WHERE group_key IS NULL;
ALTER TABLE search_keyword_totals ALTER COLUMN group_key SET NOT NULL;
ALTER TABLE search_keyword_totals DROP CONSTRAINT search_keyword_totals_pkey;
ALTER TABLE search_keyword_totals ADD CONSTRAINT search_keyword_totals_pkey
  PRIMARY KEY (group_key, conversation_id, kind, audience);
-- a search's scope lists conversations, not groups
CREATE INDEX search_keyword_totals_scope_idx ON search_keyword_totals (conversation_id, kind);

ALTER TABLE search_keyword_frequencies ADD COLUMN group_key text;
UPDATE search_keyword_frequencies f SET group_key = c.group_key FROM conversations c WHERE c.id = f.conversation_id;
UPDATE search_keyword_frequencies SET group_key = conversation_id WHERE group_key IS NULL;
ALTER TABLE search_keyword_frequencies ALTER COLUMN group_key SET NOT NULL;
ALTER TABLE search_keyword_frequencies DROP CONSTRAINT search_keyword_frequencies_pkey;
-- The key holds the lexeme's hash, not the lexeme: a lexeme of up to 1,000 bytes (0028) beside a
-- conversation id and a group at the id rule's limit (1,020 bytes each) is over the B-tree's
-- 2.7 KB. A unique index, as a primary key takes no expression; the upserts name it by its columns.
CREATE UNIQUE INDEX search_keyword_frequencies_key
  ON search_keyword_frequencies (group_key, conversation_id, kind, audience, md5(lexeme));
