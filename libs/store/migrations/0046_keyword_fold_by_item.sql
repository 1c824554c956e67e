-- The keyword fold (foldKeywordCounts) locks the waiting rows it takes, then deletes them by their
-- item ids, which it passes back as an array. The queue is often empty when autovacuum measures
-- it, so the planner takes any backlog for one row: the fold's old delete, joined to the subquery
-- that chose its rows, was then planned as a scan of the queue for each row taken (up to 10.9 s
-- a fold of 5,000 in bench:scale's bursts of 20,000 messages, on the converter that stores them).
-- By this index each row taken is one probe, whatever the statistics say.
CREATE INDEX search_keyword_pending_item_idx ON search_keyword_pending (item_id);
