-- The keyword statistics of migration 0010 are counted in the statement that stores a message (search
-- is read-your-writes), and that made the append statement 2.2x as slow (10.6 -> 23.6 ms for 8
-- messages). Measured on the statement's parts, it was the per-lexeme upsert of
-- search_keyword_frequencies (3 ms of the keyword trigger's 3.5 for 8 chat turns, 330 ms for 1,500),
-- so two changes:
--
-- 1. A message's counts are no longer taken on the held path. Its row waits in
--    search_keyword_pending (one insert, instead of an upsert per lexeme) until a fold adds many
--    messages' counts at once (search_keyword_fold, run by the converter beside its writes). A
--    search adds the pending rows of its scope to the kept counts, so its statistics are exact at
--    every moment, as before: the scores do not depend on how far the fold has come. Other kinds
--    (episodes, memories) are written off the held path by the indexer and are counted at once.
--
-- 2. A count changes in place (HOT): `items` was INCLUDEd in the lexeme-first index of 0011, so
--    every change wrote a new row version and an entry in both indexes. Searches read `items` from
--    the heap now, which they mostly did anyway: pages updated by every write are seldom all-visible.
ALTER TABLE search_keyword_frequencies SET (fillfactor = 70);
ALTER TABLE search_keyword_totals SET (fillfactor = 70);
DROP INDEX search_keyword_frequencies_lexeme_idx;
CREATE INDEX search_keyword_frequencies_lexeme_idx ON search_keyword_frequencies (lexeme, kind, conversation_id);

CREATE TABLE search_keyword_pending (
  kind            text NOT NULL,
  item_id         text NOT NULL,
  conversation_id text NOT NULL,
  tsv             tsvector NOT NULL,
  PRIMARY KEY (kind, item_id)
);
CREATE INDEX search_keyword_pending_scope_idx ON search_keyword_pending (conversation_id, kind);

-- Removes rows' counts, or their pending rows where they are still pending. The pending rows are
-- deleted first: a fold that took one has counted it (once it commits) and the delete waits for it,
-- so a row is taken out of the counts exactly when it was counted.
CREATE FUNCTION search_keyword_uncount(p_kinds text[], p_ids text[], p_conversations text[], p_tsvs tsvector[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  was_pending text[];
BEGIN
  WITH gone AS (
    DELETE FROM search_keyword_pending p USING unnest(p_kinds, p_ids) AS r(kind, item_id)
     WHERE p.kind = r.kind AND p.item_id = r.item_id
    RETURNING p.kind || E'\x1f' || p.item_id AS key
  )
  SELECT array_agg(key) INTO was_pending FROM gone;
  PERFORM search_keyword_count(array_agg(c), array_agg(k), array_agg(v), array_agg(-1))
     FROM unnest(p_kinds, p_ids, p_conversations, p_tsvs) AS r(k, i, c, v)
    WHERE NOT (k || E'\x1f' || i = ANY (COALESCE(was_pending, '{}')))
   HAVING count(*) > 0;
END $$;

-- Adds rows: messages wait to be folded, anything else is counted now.
CREATE FUNCTION search_keyword_add(p_kinds text[], p_ids text[], p_conversations text[], p_tsvs tsvector[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_keyword_pending (kind, item_id, conversation_id, tsv)
  SELECT k, i, c, v FROM unnest(p_kinds, p_ids, p_conversations, p_tsvs) AS r(k, i, c, v) WHERE k = 'message';
  PERFORM search_keyword_count(array_agg(c), array_agg(k), array_agg(v), array_agg(1))
     FROM unnest(p_kinds, p_ids, p_conversations, p_tsvs) AS r(k, i, c, v)
    WHERE k <> 'message'
   HAVING count(*) > 0;
END $$;

-- Counts up to p_limit pending rows and removes them, in one transaction with the caller's; rows
-- another fold holds are skipped. Returns how many it took. A fold holds its pending rows before the
-- counts; a deletion in a longer transaction may hold a count and then want one of those rows, so the
-- fold gives up after a short wait instead (it is run again soon; the deletion must not fail).
CREATE FUNCTION search_keyword_fold(p_limit integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  cs text[]; ks text[]; vs tsvector[]; n integer; previous text := current_setting('lock_timeout');
BEGIN
  PERFORM set_config('lock_timeout', '200ms', true);
  WITH taken AS (
    DELETE FROM search_keyword_pending p
     WHERE (p.kind, p.item_id) IN (SELECT kind, item_id FROM search_keyword_pending LIMIT p_limit FOR UPDATE SKIP LOCKED)
    RETURNING p.conversation_id, p.kind, p.tsv
  )
  SELECT array_agg(conversation_id), array_agg(kind), array_agg(tsv), count(*) INTO cs, ks, vs, n FROM taken;
  IF n > 0 THEN
    PERFORM search_keyword_count(cs, ks, vs, array_fill(1, ARRAY[n]));
  END IF;
  PERFORM set_config('lock_timeout', previous, true);
  RETURN n;
END $$;

CREATE OR REPLACE FUNCTION search_keywords_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_keywords (kind, item_id, conversation_id, user_id, occurred_at, tsv)
  SELECT kind, item_id, conversation_id, user_id, occurred_at, tsv FROM added;
  PERFORM search_keyword_add(array_agg(kind), array_agg(item_id), array_agg(conversation_id), array_agg(tsv)) FROM added HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_keywords_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM search_keywords k USING removed r WHERE k.kind = r.kind AND k.item_id = r.item_id;
  PERFORM search_keyword_uncount(array_agg(kind), array_agg(item_id), array_agg(conversation_id), array_agg(tsv)) FROM removed HAVING count(*) > 0;
  RETURN NULL;
END $$;

-- As in 0010: only rows whose keyword side changed count; the old side is taken out (or out of
-- pending), the new side added as an insert would be.
CREATE OR REPLACE FUNCTION search_keywords_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kinds text[]; ids text[]; conversations text[]; users text[]; times timestamptz[]; tsvs tsvector[]; signs integer[];
BEGIN
  WITH changed AS (
    SELECT o.*, -1 AS sign FROM removed o
     WHERE NOT EXISTS (SELECT 1 FROM added n WHERE n.kind = o.kind AND n.item_id = o.item_id AND n.conversation_id = o.conversation_id
                         AND n.user_id IS NOT DISTINCT FROM o.user_id AND n.occurred_at = o.occurred_at AND n.tsv = o.tsv)
    UNION ALL
    SELECT n.*, 1 FROM added n
     WHERE NOT EXISTS (SELECT 1 FROM removed o WHERE n.kind = o.kind AND n.item_id = o.item_id AND n.conversation_id = o.conversation_id
                         AND n.user_id IS NOT DISTINCT FROM o.user_id AND n.occurred_at = o.occurred_at AND n.tsv = o.tsv)
  )
  SELECT array_agg(kind), array_agg(item_id), array_agg(conversation_id), array_agg(user_id), array_agg(occurred_at), array_agg(tsv), array_agg(sign)
    INTO kinds, ids, conversations, users, times, tsvs, signs
    FROM changed;
  IF kinds IS NULL THEN RETURN NULL; END IF;
  DELETE FROM search_keywords k USING unnest(kinds, ids, signs) AS c(kind, item_id, sign)
   WHERE c.sign < 0 AND k.kind = c.kind AND k.item_id = c.item_id;
  INSERT INTO search_keywords (kind, item_id, conversation_id, user_id, occurred_at, tsv)
  SELECT k, i, c, u, t, v FROM unnest(kinds, ids, conversations, users, times, tsvs, signs) AS x(k, i, c, u, t, v, s) WHERE s > 0;
  PERFORM search_keyword_uncount(array_agg(k), array_agg(i), array_agg(c), array_agg(v))
     FROM unnest(kinds, ids, conversations, tsvs, signs) AS x(k, i, c, v, s) WHERE s < 0 HAVING count(*) > 0;
  PERFORM search_keyword_add(array_agg(k), array_agg(i), array_agg(c), array_agg(v))
     FROM unnest(kinds, ids, conversations, tsvs, signs) AS x(k, i, c, v, s) WHERE s > 0 HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_keywords_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE search_keywords, search_keyword_totals, search_keyword_frequencies, search_keyword_pending;
  RETURN NULL;
END $$;
