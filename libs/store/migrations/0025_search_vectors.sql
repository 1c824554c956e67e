-- A search item's vector gets a row of its own. Since search became read-your-writes, the keyword
-- side of a message's row is written with the message, and the indexer set the vector later by an
-- UPDATE. A vector changes an indexed column, so every such UPDATE wrote a new version of the wide
-- row into each of search_items' indexes (its HNSW graph among them) and left a dead one behind for
-- vacuum, whose pass over an HNSW index walks the whole graph. Measured on held writes (embedded):
-- 54,387 of 57,583 rows updated once each, none in place. Now the indexer inserts the vector row
-- once, and nothing updates search_items.
--
-- search_vectors repeats the columns a vector search filters on (all fixed when the item is
-- written), so the HNSW walk and the exact scan read this table alone; the hit's text comes from
-- search_items afterwards. The foreign key deletes a vector with its item: every deletion path
-- (forget, purge, erasure, retention, a superseded memory) removes search_items rows, and their
-- vectors follow without being named.
CREATE TABLE search_vectors (
  kind            text NOT NULL,
  item_id         text NOT NULL,
  conversation_id text NOT NULL,
  user_id         text,
  occurred_at     timestamptz NOT NULL,
  audience        text,
  embedding       vector NOT NULL,
  embedding_model text NOT NULL,
  -- as in 0024: the turn whose words the vector carries besides the item's own (NULL: none)
  context_item_id text,
  indexed_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, item_id),
  FOREIGN KEY (kind, item_id) REFERENCES search_items (kind, item_id) ON DELETE CASCADE
);
CREATE INDEX search_vectors_scope_idx ON search_vectors (conversation_id, kind, occurred_at);
CREATE INDEX search_vectors_user_idx ON search_vectors (user_id, kind, occurred_at);
CREATE INDEX search_vectors_model_idx ON search_vectors (embedding_model);
CREATE INDEX search_vectors_context_idx ON search_vectors (context_item_id) WHERE context_item_id IS NOT NULL;

-- Items no stored event will embed (an import's rows, turns whose context turn was forgotten): the
-- indexer's sweep embeds them and takes them off. Before, they were marked on search_items with the
-- empty model name, which took an UPDATE again to clear.
CREATE TABLE search_unembedded (
  kind    text NOT NULL,
  item_id text NOT NULL,
  PRIMARY KEY (kind, item_id),
  FOREIGN KEY (kind, item_id) REFERENCES search_items (kind, item_id) ON DELETE CASCADE
);

INSERT INTO search_vectors (kind, item_id, conversation_id, user_id, occurred_at, audience, embedding, embedding_model,
                            context_item_id, indexed_at)
SELECT kind, item_id, conversation_id, user_id, occurred_at, audience, embedding, embedding_model, context_item_id, indexed_at
  FROM search_items WHERE embedding IS NOT NULL AND embedding_model <> '';
INSERT INTO search_unembedded (kind, item_id) SELECT kind, item_id FROM search_items WHERE embedding_model = '';

-- The per-model HNSW indexes go with the column; the indexer builds its model's on search_vectors
-- when it starts (ensureVectorIndex).
ALTER TABLE search_items DROP COLUMN embedding, DROP COLUMN embedding_model, DROP COLUMN context_item_id;
