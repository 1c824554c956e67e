-- BM25's statistics over every conversation at once, per kind and audience: a search that names no
-- conversation (an admin, an agent with no person) read them by summing every conversation's
-- counts, which grew with the store. At 1,000,000 messages (100,200 conversations) that sum was
-- 835 ms of a 981 ms hybrid search, most of it reading 185,000 frequency rows for four words.
-- The writers of the per-conversation counts add the same deltas here in the same statement
-- (keywordDeltaSql), and a purge counts a group out (lifecycle.ts), so these are their sums.
CREATE TABLE search_keyword_overall_totals (
  kind text NOT NULL,
  audience text NOT NULL,
  items bigint NOT NULL,
  lexemes bigint NOT NULL,
  PRIMARY KEY (kind, audience)
);

-- A lexeme no row holds has no row (dropZeroedFrequencies), as in search_keyword_frequencies: an
-- erased word leaves nothing behind. Lexemes are at most 1,000 bytes (0028), so the key fits.
CREATE TABLE search_keyword_overall_frequencies (
  lexeme text NOT NULL,
  kind text NOT NULL,
  audience text NOT NULL,
  items bigint NOT NULL,
  PRIMARY KEY (lexeme, kind, audience)
);

INSERT INTO search_keyword_overall_totals (kind, audience, items, lexemes)
SELECT kind, audience, sum(items), sum(lexemes) FROM search_keyword_totals GROUP BY kind, audience;

INSERT INTO search_keyword_overall_frequencies (lexeme, kind, audience, items)
SELECT lexeme, kind, audience, sum(items) FROM search_keyword_frequencies
 GROUP BY lexeme, kind, audience HAVING sum(items) <> 0;

-- Small, and read whole by a search of any shard: copied to every node (docs/store.md).
INSERT INTO store_distribution (table_name, kind, shard_column) VALUES
  ('search_keyword_overall_totals', 'reference', NULL),
  ('search_keyword_overall_frequencies', 'reference', NULL);
