-- The sweep's queue of items to embed (search_unembedded) now also holds messages whose indexing was
-- dead-lettered, and an item can fail every time it is tried (a text the model refuses, a bug). Taken
-- in no order and tried on every sweep, such items were embedded again every few seconds, and a
-- batch holding one failed for all. Each row now says how often it failed and when it is due again:
-- the sweep takes due rows oldest first, and pushes a row it could not embed further out each time.
-- (now() is stable: existing rows get the migration's time without the table being rewritten.)
ALTER TABLE search_unembedded
  ADD COLUMN attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN not_before timestamptz NOT NULL DEFAULT now();
CREATE INDEX search_unembedded_due_idx ON search_unembedded (not_before);
