-- A message's vector may be made from the turn before it as well as from the turn itself
-- (EMBEDDING_TURN_CONTEXT=previous): the row then names that turn, so that forgetting it finds,
-- by this index, every vector still carrying its words and clears it for the indexer to make
-- again from the turn's new predecessor. NULL: the vector holds the row's own words only.
ALTER TABLE search_items ADD COLUMN context_item_id text;
CREATE INDEX search_items_context_idx ON search_items (context_item_id) WHERE context_item_id IS NOT NULL;
