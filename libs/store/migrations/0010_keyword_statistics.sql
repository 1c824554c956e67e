-- Keyword search without a pass over the whole scope. BM25 needs, for the searched scope (a
-- person's conversations, one conversation, ...), the number of items, their total length and each
-- query term's document frequency. Counting them per search meant reading every row of the scope
-- (100,000 rows of 2 KB each for a person with 1,000 conversations: 170 ms). They are now kept per
-- conversation and kind, so a scope's statistics are sums over its conversations, taken when the
-- search runs: sharing or revoking a conversation changes the sums at once, and the scores are the
-- ones the full pass gave.
--
-- search_keywords is the keyword side of search_items without the vector (a row of ~200 bytes
-- instead of ~2 KB), so the rows a query matches are read from a table a tenth of the size.
--
-- All three tables are kept by triggers on search_items, in the statement that changes it: every
-- writer (the indexer, deletions, a superseded memory, a redelivered event re-indexing the same
-- text) keeps them exact without knowing of them. A redelivery that writes the same text changes
-- nothing; an update counts the old row out and the new one in.
CREATE TABLE search_keywords (
  kind            text NOT NULL,
  item_id         text NOT NULL,
  conversation_id text NOT NULL,
  user_id         text,
  occurred_at     timestamptz NOT NULL,
  tsv             tsvector NOT NULL,
  PRIMARY KEY (kind, item_id)
);
CREATE INDEX search_keywords_tsv_idx ON search_keywords USING gin (tsv);
CREATE INDEX search_keywords_scope_idx ON search_keywords (conversation_id, kind, occurred_at);
CREATE INDEX search_keywords_user_idx ON search_keywords (user_id, kind, occurred_at);
-- keyword search reads search_keywords now; this index would only cost every write
DROP INDEX search_items_tsv_idx;

-- Per conversation and kind: how many items, and the sum of their lengths (lexemes, as BM25's
-- document length here is length(tsv)).
CREATE TABLE search_keyword_totals (
  conversation_id text NOT NULL,
  kind            text NOT NULL,
  items           bigint NOT NULL,
  lexemes         bigint NOT NULL,
  PRIMARY KEY (conversation_id, kind)
);

-- Per conversation, kind and lexeme: how many items hold the lexeme (rows that reach 0 are removed).
CREATE TABLE search_keyword_frequencies (
  conversation_id text NOT NULL,
  kind            text NOT NULL,
  lexeme          text NOT NULL,
  items           bigint NOT NULL,
  PRIMARY KEY (conversation_id, kind, lexeme)
);

-- Adds (sign 1) or removes (sign -1) rows' counts. Rows are locked in key order, totals first, so
-- two writers never wait for each other in a cycle within a statement; a conversation's events
-- reach one indexer at a time anyway, so waits are rare.
CREATE FUNCTION search_keyword_count(p_conversations text[], p_kinds text[], p_tsvs tsvector[], p_signs integer[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_keyword_totals AS t (conversation_id, kind, items, lexemes)
  SELECT c, k, sum(s), sum(s * length(v))
    FROM unnest(p_conversations, p_kinds, p_tsvs, p_signs) AS u(c, k, v, s)
   GROUP BY c, k ORDER BY c, k
  ON CONFLICT (conversation_id, kind) DO UPDATE SET items = t.items + EXCLUDED.items, lexemes = t.lexemes + EXCLUDED.lexemes;

  INSERT INTO search_keyword_frequencies AS f (conversation_id, kind, lexeme, items)
  SELECT c, k, l.lexeme, sum(s)
    FROM unnest(p_conversations, p_kinds, p_tsvs, p_signs) AS u(c, k, v, s), unnest(u.v) AS l
   GROUP BY c, k, l.lexeme HAVING sum(s) <> 0 ORDER BY c, k, l.lexeme
  ON CONFLICT (conversation_id, kind, lexeme) DO UPDATE SET items = f.items + EXCLUDED.items;

  IF -1 = ANY (p_signs) THEN
    DELETE FROM search_keyword_frequencies f
     USING (SELECT DISTINCT c, k, l.lexeme FROM unnest(p_conversations, p_kinds, p_tsvs, p_signs) AS u(c, k, v, s), unnest(u.v) AS l WHERE s < 0) g
     WHERE f.conversation_id = g.c AND f.kind = g.k AND f.lexeme = g.lexeme AND f.items = 0;
  END IF;
END $$;

CREATE FUNCTION search_keywords_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_keywords (kind, item_id, conversation_id, user_id, occurred_at, tsv)
  SELECT kind, item_id, conversation_id, user_id, occurred_at, tsv FROM added;
  PERFORM search_keyword_count(array_agg(conversation_id), array_agg(kind), array_agg(tsv), array_agg(1)) FROM added HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE FUNCTION search_keywords_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM search_keywords k USING removed r WHERE k.kind = r.kind AND k.item_id = r.item_id;
  PERFORM search_keyword_count(array_agg(conversation_id), array_agg(kind), array_agg(tsv), array_agg(-1)) FROM removed HAVING count(*) > 0;
  RETURN NULL;
END $$;

-- Only rows whose keyword side changed count: re-embedding and a redelivery of the same text
-- rewrite search_items rows but leave their words as they were.
CREATE FUNCTION search_keywords_updated() RETURNS trigger LANGUAGE plpgsql AS $$
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
  PERFORM search_keyword_count(conversations, kinds, tsvs, signs);
  RETURN NULL;
END $$;

CREATE FUNCTION search_keywords_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE search_keywords, search_keyword_totals, search_keyword_frequencies;
  RETURN NULL;
END $$;

CREATE TRIGGER search_keywords_insert AFTER INSERT ON search_items REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION search_keywords_inserted();
CREATE TRIGGER search_keywords_update AFTER UPDATE ON search_items REFERENCING OLD TABLE AS removed NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION search_keywords_updated();
CREATE TRIGGER search_keywords_delete AFTER DELETE ON search_items REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION search_keywords_deleted();
CREATE TRIGGER search_keywords_truncate AFTER TRUNCATE ON search_items
  FOR EACH STATEMENT EXECUTE FUNCTION search_keywords_truncated();

-- What is already indexed.
INSERT INTO search_keywords (kind, item_id, conversation_id, user_id, occurred_at, tsv)
SELECT kind, item_id, conversation_id, user_id, occurred_at, tsv FROM search_items;
INSERT INTO search_keyword_totals (conversation_id, kind, items, lexemes)
SELECT conversation_id, kind, count(*), sum(length(tsv)) FROM search_items GROUP BY 1, 2;
INSERT INTO search_keyword_frequencies (conversation_id, kind, lexeme, items)
SELECT s.conversation_id, s.kind, l.lexeme, count(*) FROM search_items s, unnest(s.tsv) AS l GROUP BY 1, 2, 3;
