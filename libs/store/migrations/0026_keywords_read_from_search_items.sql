-- Keyword search reads search_items again, and search_keywords goes. Migration 0010 made the narrow
-- copy because a search_items row then carried its vector (~2 KB), so the rows a query matched were
-- read from a table a tenth of the size. Since 0025 the vector lives in search_vectors, and a
-- search_items row is the copy's columns plus the text and the audience. Meanwhile every stored
-- message writes its keyword side at append time (read-your-writes search): the copy cost each
-- message one more heap row and four index entries on the held path, PostgreSQL's largest share of
-- a stored message. The GIN index moves to search_items' own tsvector; the triggers keep the counts
-- (0010, 0021) as before and no longer write the copy.
CREATE INDEX search_items_tsv_idx ON search_items USING gin (tsv);

CREATE OR REPLACE FUNCTION search_keywords_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM search_keyword_add(array_agg(kind), array_agg(item_id), array_agg(conversation_id), array_agg(tsv)) FROM added HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_keywords_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM search_keyword_uncount(array_agg(kind), array_agg(item_id), array_agg(conversation_id), array_agg(tsv)) FROM removed HAVING count(*) > 0;
  RETURN NULL;
END $$;

-- As in 0021: only rows whose keyword side changed count; the old side is taken out (or out of
-- pending), the new side added as an insert would be.
CREATE OR REPLACE FUNCTION search_keywords_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kinds text[]; ids text[]; conversations text[]; tsvs tsvector[]; signs integer[];
BEGIN
  WITH changed AS (
    SELECT o.kind, o.item_id, o.conversation_id, o.tsv, -1 AS sign FROM removed o
     WHERE NOT EXISTS (SELECT 1 FROM added n WHERE n.kind = o.kind AND n.item_id = o.item_id AND n.conversation_id = o.conversation_id
                         AND n.tsv = o.tsv)
    UNION ALL
    SELECT n.kind, n.item_id, n.conversation_id, n.tsv, 1 FROM added n
     WHERE NOT EXISTS (SELECT 1 FROM removed o WHERE n.kind = o.kind AND n.item_id = o.item_id AND n.conversation_id = o.conversation_id
                         AND n.tsv = o.tsv)
  )
  SELECT array_agg(kind), array_agg(item_id), array_agg(conversation_id), array_agg(tsv), array_agg(sign)
    INTO kinds, ids, conversations, tsvs, signs
    FROM changed;
  IF kinds IS NULL THEN RETURN NULL; END IF;
  PERFORM search_keyword_uncount(array_agg(k), array_agg(i), array_agg(c), array_agg(v))
     FROM unnest(kinds, ids, conversations, tsvs, signs) AS x(k, i, c, v, s) WHERE s < 0 HAVING count(*) > 0;
  PERFORM search_keyword_add(array_agg(k), array_agg(i), array_agg(c), array_agg(v))
     FROM unnest(kinds, ids, conversations, tsvs, signs) AS x(k, i, c, v, s) WHERE s > 0 HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_keywords_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE search_keyword_totals, search_keyword_frequencies, search_keyword_pending;
  RETURN NULL;
END $$;

DROP TABLE search_keywords;
