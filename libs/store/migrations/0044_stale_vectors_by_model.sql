-- The indexer's re-embedding backlog (staleVectors) asked for vectors whose model is not the
-- current one, oldest first. No btree scan answers "<>", so each ask read the whole of
-- search_vectors and sorted what it found: once at every indexer start, and once per round of
-- the backlog after a model change, whose rounds are small (INDEXER_REEMBED_BATCH). The backlog
-- is now read as two ranges of this index, the models sorting before the current one and those
-- after it, each in its model's order of indexing: a round reads about what it returns.
DROP INDEX search_vectors_model_idx;
CREATE INDEX search_vectors_model_idx ON search_vectors (embedding_model, indexed_at);
