-- Imports before issue 49 stored messages without moving their conversation's next_seq past them:
-- a later write that reached a number taken failed on messages' key, and so did every write of
-- that conversation after it. Imports now move it themselves; this repairs what older ones left.
-- KAOS sessions' next_event had the same gap.
UPDATE conversations c SET next_seq = m.top + 1
FROM (SELECT conversation_id, max(seq) AS top FROM messages GROUP BY conversation_id) m
WHERE m.conversation_id = c.id AND c.next_seq <= m.top;

UPDATE kaos_sessions s SET next_event = e.top + 1
FROM (SELECT conversation_id, max(seq) AS top FROM kaos_events GROUP BY conversation_id) e
WHERE e.conversation_id = s.conversation_id AND s.next_event <= e.top;
