-- BM25's statistics per audience (issue 49, item 9). The kept counts (0010, 0021) were per
-- conversation and kind, and they counted agent-only rows (`audience` of migration 0012: an agent's
-- memory channel, `visibility: agent`) with everyone's. A person's hits left those rows out, but
-- their scores did not: after an agent wrote 15 memory-channel messages holding one word of a
-- two-word query into dora's conversation, her two messages went from 0.227 each to 0.021 and
-- 0.594. One probe per guessed word told a member whether, and roughly how often, an agent's
-- working memory used it. The counts are now kept per audience as well, and a search sums only
-- the audiences its caller may read (pending rows included), so a person's scores are the same
-- whatever agents write for themselves.
--
-- A count's audience is the row's audience, '' for everyone (a key column cannot be NULL). An
-- audience names an agent's client id, which nothing bounds (a configured key, an imported
-- message's metadata); past 200 bytes it is kept as its md5, so the keys stay within the B-tree's
-- entry size with 0028's bound on lexemes. Searches map their caller's audiences the same way.
CREATE FUNCTION search_keyword_audience(a text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a IS NULL THEN '' WHEN octet_length(a) <= 200 THEN a ELSE 'md5:' || md5(a) END
$$;

ALTER TABLE search_keyword_totals ADD COLUMN audience text NOT NULL DEFAULT '';
ALTER TABLE search_keyword_totals ALTER COLUMN audience DROP DEFAULT;
ALTER TABLE search_keyword_totals DROP CONSTRAINT search_keyword_totals_pkey,
  ADD PRIMARY KEY (conversation_id, kind, audience);
ALTER TABLE search_keyword_frequencies ADD COLUMN audience text NOT NULL DEFAULT '';
ALTER TABLE search_keyword_frequencies ALTER COLUMN audience DROP DEFAULT;
ALTER TABLE search_keyword_frequencies DROP CONSTRAINT search_keyword_frequencies_pkey,
  ADD PRIMARY KEY (conversation_id, kind, audience, lexeme);
ALTER TABLE search_keyword_pending ADD COLUMN audience text NOT NULL DEFAULT '';
ALTER TABLE search_keyword_pending ALTER COLUMN audience DROP DEFAULT;

-- 0030's counting, with the audience beside the conversation and kind; rows are still locked in
-- key order, totals first.
CREATE FUNCTION search_keyword_count(p_conversations text[], p_kinds text[], p_audiences text[], p_tsvs tsvector[], p_signs integer[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_keyword_totals AS t (conversation_id, kind, audience, items, lexemes)
  SELECT c, k, a, sum(s), sum(s * length(v))
    FROM unnest(p_conversations, p_kinds, p_audiences, p_tsvs, p_signs) AS u(c, k, a, v, s)
   GROUP BY c, k, a ORDER BY c, k, a
  ON CONFLICT (conversation_id, kind, audience) DO UPDATE SET items = t.items + EXCLUDED.items, lexemes = t.lexemes + EXCLUDED.lexemes;

  INSERT INTO search_keyword_frequencies AS f (conversation_id, kind, audience, lexeme, items)
  SELECT c, k, a, l.lexeme, sum(s)
    FROM unnest(p_conversations, p_kinds, p_audiences, p_tsvs, p_signs) AS u(c, k, a, v, s), unnest(tsvector_to_array(u.v)) AS l(lexeme)
   WHERE octet_length(l.lexeme) <= 1000
   GROUP BY c, k, a, l.lexeme HAVING sum(s) <> 0 ORDER BY c, k, a, l.lexeme
  ON CONFLICT (conversation_id, kind, audience, lexeme) DO UPDATE SET items = f.items + EXCLUDED.items;

  IF -1 = ANY (p_signs) THEN
    DELETE FROM search_keyword_frequencies f
     USING (SELECT DISTINCT c, k, a, l.lexeme FROM unnest(p_conversations, p_kinds, p_audiences, p_tsvs, p_signs) AS u(c, k, a, v, s),
                   unnest(tsvector_to_array(u.v)) AS l(lexeme)
             WHERE s < 0 AND octet_length(l.lexeme) <= 1000) g
     WHERE f.conversation_id = g.c AND f.kind = g.k AND f.audience = g.a AND f.lexeme = g.lexeme AND f.items = 0;
  END IF;
END $$;

-- As in 0021: pending rows are deleted first, and what was pending is not taken out of the counts.
CREATE FUNCTION search_keyword_uncount(p_kinds text[], p_ids text[], p_conversations text[], p_audiences text[], p_tsvs tsvector[]) RETURNS void
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
  PERFORM search_keyword_count(array_agg(c), array_agg(k), array_agg(a), array_agg(v), array_agg(-1))
     FROM unnest(p_kinds, p_ids, p_conversations, p_audiences, p_tsvs) AS r(k, i, c, a, v)
    WHERE NOT (k || E'\x1f' || i = ANY (COALESCE(was_pending, '{}')))
   HAVING count(*) > 0;
END $$;

CREATE FUNCTION search_keyword_add(p_kinds text[], p_ids text[], p_conversations text[], p_audiences text[], p_tsvs tsvector[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_keyword_pending (kind, item_id, conversation_id, audience, tsv)
  SELECT k, i, c, a, v FROM unnest(p_kinds, p_ids, p_conversations, p_audiences, p_tsvs) AS r(k, i, c, a, v) WHERE k = 'message';
  PERFORM search_keyword_count(array_agg(c), array_agg(k), array_agg(a), array_agg(v), array_agg(1))
     FROM unnest(p_kinds, p_ids, p_conversations, p_audiences, p_tsvs) AS r(k, i, c, a, v)
    WHERE k <> 'message'
   HAVING count(*) > 0;
END $$;

CREATE OR REPLACE FUNCTION search_keyword_fold(p_limit integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  cs text[]; ks text[]; aus text[]; vs tsvector[]; n integer; previous text := current_setting('lock_timeout');
BEGIN
  PERFORM set_config('lock_timeout', '200ms', true);
  WITH taken AS (
    DELETE FROM search_keyword_pending p
     WHERE (p.kind, p.item_id) IN (SELECT kind, item_id FROM search_keyword_pending LIMIT p_limit FOR UPDATE SKIP LOCKED)
    RETURNING p.conversation_id, p.kind, p.audience, p.tsv
  )
  SELECT array_agg(conversation_id), array_agg(kind), array_agg(audience), array_agg(tsv), count(*) INTO cs, ks, aus, vs, n FROM taken;
  IF n > 0 THEN
    PERFORM search_keyword_count(cs, ks, aus, vs, array_fill(1, ARRAY[n]));
  END IF;
  PERFORM set_config('lock_timeout', previous, true);
  RETURN n;
END $$;

CREATE OR REPLACE FUNCTION search_keywords_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM search_keyword_add(array_agg(kind), array_agg(item_id), array_agg(conversation_id),
                             array_agg(search_keyword_audience(audience)), array_agg(tsv))
     FROM added HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_keywords_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM search_keyword_uncount(array_agg(kind), array_agg(item_id), array_agg(conversation_id),
                                 array_agg(search_keyword_audience(audience)), array_agg(tsv))
     FROM removed HAVING count(*) > 0;
  RETURN NULL;
END $$;

-- As in 0026; a row whose audience changed is counted out of the old one and into the new.
CREATE OR REPLACE FUNCTION search_keywords_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kinds text[]; ids text[]; conversations text[]; audiences text[]; tsvs tsvector[]; signs integer[];
BEGIN
  WITH changed AS (
    SELECT o.kind, o.item_id, o.conversation_id, o.audience, o.tsv, -1 AS sign FROM removed o
     WHERE NOT EXISTS (SELECT 1 FROM added n WHERE n.kind = o.kind AND n.item_id = o.item_id AND n.conversation_id = o.conversation_id
                         AND n.audience IS NOT DISTINCT FROM o.audience AND n.tsv = o.tsv)
    UNION ALL
    SELECT n.kind, n.item_id, n.conversation_id, n.audience, n.tsv, 1 FROM added n
     WHERE NOT EXISTS (SELECT 1 FROM removed o WHERE n.kind = o.kind AND n.item_id = o.item_id AND n.conversation_id = o.conversation_id
                         AND n.audience IS NOT DISTINCT FROM o.audience AND n.tsv = o.tsv)
  )
  SELECT array_agg(kind), array_agg(item_id), array_agg(conversation_id), array_agg(search_keyword_audience(audience)),
         array_agg(tsv), array_agg(sign)
    INTO kinds, ids, conversations, audiences, tsvs, signs
    FROM changed;
  IF kinds IS NULL THEN RETURN NULL; END IF;
  PERFORM search_keyword_uncount(array_agg(k), array_agg(i), array_agg(c), array_agg(a), array_agg(v))
     FROM unnest(kinds, ids, conversations, audiences, tsvs, signs) AS x(k, i, c, a, v, s) WHERE s < 0 HAVING count(*) > 0;
  PERFORM search_keyword_add(array_agg(k), array_agg(i), array_agg(c), array_agg(a), array_agg(v))
     FROM unnest(kinds, ids, conversations, audiences, tsvs, signs) AS x(k, i, c, a, v, s) WHERE s > 0 HAVING count(*) > 0;
  RETURN NULL;
END $$;

DROP FUNCTION search_keyword_add(text[], text[], text[], tsvector[]);
DROP FUNCTION search_keyword_uncount(text[], text[], text[], tsvector[]);
DROP FUNCTION search_keyword_count(text[], text[], tsvector[], integer[]);

-- What is there already: pending rows take their item's audience, and the counts of agent-only
-- rows already folded move from everyone's to their audience (they were counted as everyone's;
-- the same function moves them, so 0028's bound applies both ways). Such rows are few, found
-- through 0012's partial index.
UPDATE search_keyword_pending p SET audience = search_keyword_audience(s.audience)
  FROM search_items s
 WHERE s.audience IS NOT NULL AND s.kind = p.kind AND s.item_id = p.item_id;

SELECT search_keyword_count(array_agg(r.conversation_id), array_agg(r.kind), array_agg(r.a), array_agg(r.tsv), array_agg(r.sign))
  FROM (SELECT s.conversation_id, s.kind, x.a, s.tsv, x.sign
          FROM search_items s CROSS JOIN LATERAL (VALUES ('', -1), (search_keyword_audience(s.audience), 1)) AS x(a, sign)
         WHERE s.audience IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM search_keyword_pending p WHERE p.kind = s.kind AND p.item_id = s.item_id)) r
HAVING count(*) > 0;
