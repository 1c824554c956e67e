-- The fold (and every count of memories) reads each tsvector's lexemes and nothing else, but
-- unnest(tsvector) also builds each lexeme's positions and weights arrays. Measured on a fold of
-- 5,000 chat messages (about 14 lexemes each): that unnest took 57-60 ms of the frequencies upsert's
-- 195, tsvector_to_array and unnest 22. Same lexemes, same order; the function is otherwise 0028's.
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
    FROM unnest(p_conversations, p_kinds, p_tsvs, p_signs) AS u(c, k, v, s), unnest(tsvector_to_array(u.v)) AS l(lexeme)
   WHERE octet_length(l.lexeme) <= 1000
   GROUP BY c, k, l.lexeme HAVING sum(s) <> 0 ORDER BY c, k, l.lexeme
  ON CONFLICT (conversation_id, kind, lexeme) DO UPDATE SET items = f.items + EXCLUDED.items;

  IF -1 = ANY (p_signs) THEN
    DELETE FROM search_keyword_frequencies f
     USING (SELECT DISTINCT c, k, l.lexeme FROM unnest(p_conversations, p_kinds, p_tsvs, p_signs) AS u(c, k, v, s), unnest(tsvector_to_array(u.v)) AS l(lexeme)
             WHERE s < 0 AND octet_length(l.lexeme) <= 1000) g
     WHERE f.conversation_id = g.c AND f.kind = g.k AND f.lexeme = g.lexeme AND f.items = 0;
  END IF;
END $$;
