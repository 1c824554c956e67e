-- A lexeme long enough to make its frequency row's key too big for the primary key of
-- search_keyword_frequencies is left out of the counts. That key is (conversation_id, kind, lexeme):
-- a conversation id may take over 1,000 bytes (255 four-byte characters; a private chat 8 more) and
-- PostgreSQL keeps lexemes of up to 2,047 bytes, while a B-tree entry may take about 2,700. Such a
-- message was stored and searchable, but every fold that took its pending row failed ("index row
-- size ... exceeds maximum"), so the rows in that fold's window stayed pending for good and every
-- search of their scope counted more of them; a memory holding such a word failed its indexing on
-- every sweep. Words of over 1,000 bytes are not words people search for: they are left out of the
-- counts (the rest of the row's words are counted). The same bound applies when rows are taken out,
-- so a count never goes below what was added.
CREATE OR REPLACE FUNCTION search_keyword_count(p_conversations text[], p_kinds text[], p_tsvs tsvector[], p_signs integer[]) RETURNS void
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
   WHERE octet_length(l.lexeme) <= 1000
   GROUP BY c, k, l.lexeme HAVING sum(s) <> 0 ORDER BY c, k, l.lexeme
  ON CONFLICT (conversation_id, kind, lexeme) DO UPDATE SET items = f.items + EXCLUDED.items;

  IF -1 = ANY (p_signs) THEN
    DELETE FROM search_keyword_frequencies f
     USING (SELECT DISTINCT c, k, l.lexeme FROM unnest(p_conversations, p_kinds, p_tsvs, p_signs) AS u(c, k, v, s), unnest(u.v) AS l
             WHERE s < 0 AND octet_length(l.lexeme) <= 1000) g
     WHERE f.conversation_id = g.c AND f.kind = g.k AND f.lexeme = g.lexeme AND f.items = 0;
  END IF;
END $$;
