-- The keyword statistics of migration 0010 are counted in the statement that stores a message (search
-- is read-your-writes), and that made the append statement 2.2x as slow (10.6 -> 23.6 ms for 8
-- messages). Measured on the statement's parts: the per-lexeme upsert of search_keyword_frequencies
-- was most of it (3 ms of 3.5 for 8 messages, 330 ms for 1,500 chat turns), because every change of a
-- count wrote a new row version AND a new entry in both of its indexes: `items` was INCLUDEd in the
-- lexeme-first index of 0011, so no update could be HOT. Without it, a count changes in place on its
-- page (no index is touched), given room on the page: hence the fill factor. Searches read each
-- query term's counts through the same index and fetch `items` from the heap, which they mostly did
-- anyway: a table updated by every write seldom has its pages marked all-visible.
ALTER TABLE search_keyword_frequencies SET (fillfactor = 70);
ALTER TABLE search_keyword_totals SET (fillfactor = 70);
DROP INDEX search_keyword_frequencies_lexeme_idx;
CREATE INDEX search_keyword_frequencies_lexeme_idx ON search_keyword_frequencies (lexeme, kind, conversation_id);
