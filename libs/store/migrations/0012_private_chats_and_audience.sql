-- Two access rules that every family's reads now share (issue 26).
--
-- 1. A private chat belongs to the person it is private to. EverMemOS stores a message without a
--    group as conversation `private:<sender>`. Until now the first person to write such an id
--    claimed it, so bob could post as `sender: alice` and own alice's private chat. The rule is
--    now part of the access functions themselves: the person named by `private:<id>` is its
--    owner whether or not a membership row says so, and nobody else can claim it (the claim is
--    refused in claimConversation). Rows other people hold on private chats came from that
--    hole (nobody could share what they did not own first), so they are removed.
--
-- 2. Agent-only content stays with agents. memory-service marks messages `visibility: agent`
--    (for agents only) and keeps each agent's working memory on the `memory` channel (for that
--    agent only). Its own routes hid them from people; the other families read the same rows
--    without knowing. `messages.audience` names who may read a message beyond the conversation's
--    members' usual rights: NULL for everyone, 'agents' for every agent, 'agent:<client id>' for
--    one agent. Search rows carry the same value, so search filters in SQL, before ranking.

ALTER TABLE messages ADD COLUMN audience text GENERATED ALWAYS AS (
  CASE
    WHEN metadata->'ms'->>'channel' = 'memory' THEN 'agent:' || COALESCE(metadata->'ms'->>'client_id', '')
    WHEN metadata->'ms'->>'visibility' = 'agent' THEN 'agents'
  END
) STORED;

ALTER TABLE search_items ADD COLUMN audience text;
UPDATE search_items s SET audience = m.audience
  FROM messages m WHERE s.kind = 'message' AND s.item_id = m.id::text AND m.audience IS NOT NULL;
-- Restricted rows are few: keyword search (which reads search_keywords) leaves them out with an
-- anti-join on this small index instead of a wider keyword table.
CREATE INDEX search_items_restricted_idx ON search_items (kind, item_id) INCLUDE (audience) WHERE audience IS NOT NULL;

-- What was made from agent-only messages is everyone's to read, so it goes: episodes holding
-- any are extracted again without them (their memories deleted now, as a deletion does), and
-- rolling summaries of conversations with any are dropped (the next message summarizes anew).
WITH hidden AS (
  SELECT e.id, array_agg(x ORDER BY o) FILTER (WHERE m.audience IS NULL) AS kept
    FROM episodes e CROSS JOIN LATERAL unnest(e.message_ids) WITH ORDINALITY AS u(x, o)
    LEFT JOIN messages m ON m.conversation_id = e.conversation_id AND m.message_id = u.x
   GROUP BY e.id
  HAVING bool_or(m.audience IS NOT NULL)
),
gone_memories AS (
  DELETE FROM episodic_memories WHERE episode_id IN (SELECT id FROM hidden) RETURNING id
),
gone_rows AS (
  DELETE FROM search_items WHERE kind = 'episodic_memory' AND item_id IN (SELECT id FROM gone_memories) RETURNING 1
),
emptied AS (
  DELETE FROM episodes WHERE id IN (SELECT id FROM hidden WHERE kept IS NULL) RETURNING 1
)
UPDATE episodes e SET message_ids = h.kept, version = e.version + 1, status = 'pending', attempts = 0,
       next_attempt_at = now(), claimed_until = NULL, error = NULL, updated_at = now()
  FROM hidden h WHERE e.id = h.id AND h.kept IS NOT NULL;

DELETE FROM memory WHERE conversation_id IN (SELECT DISTINCT conversation_id FROM messages WHERE audience IS NOT NULL);

DELETE FROM conversation_memberships
 WHERE group_id LIKE 'private:%' AND group_id <> 'private:' || user_id;

-- The private chat's person reaches it (and its forks) with every level: they own it.
CREATE OR REPLACE FUNCTION conversations_visible_to(p_user text, p_levels text[]) RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT m.group_id FROM conversation_memberships m
   WHERE m.user_id = p_user AND m.access_level = ANY (p_levels)
     AND NOT EXISTS (SELECT 1 FROM conversations d WHERE d.id = m.group_id AND d.deleted_at IS NOT NULL)
  UNION
  SELECT c.id FROM conversations c
    JOIN conversation_memberships m ON m.group_id = c.group_id
   WHERE m.user_id = p_user AND m.access_level = ANY (p_levels) AND c.deleted_at IS NULL
  UNION
  SELECT c.id FROM conversations c
   WHERE COALESCE(c.group_id, c.id) = 'private:' || p_user AND 'owner' = ANY (p_levels) AND c.deleted_at IS NULL
$$;
