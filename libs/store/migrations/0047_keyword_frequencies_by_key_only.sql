-- The lexeme-first index of the keyword frequencies (0011, 0021) served one read: a search over
-- every conversation, summing each conversation's count of a lexeme. Such a search reads the sums
-- of 0045 now, and a search in some conversations looks up each of them by the key (group,
-- conversation, kind, audience, md5 of the lexeme). Every fold paid for the index: a new
-- (conversation, lexeme) row is an entry in it, and a fold of 5,000 messages into 200 new
-- conversations took 1.05 s without it against 1.50 s with it (means of three, 100,000 messages
-- stored). At 6 million messages the table's indexes were 13.2 GB.
DROP INDEX search_keyword_frequencies_lexeme_idx;
