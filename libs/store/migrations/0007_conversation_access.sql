-- Who may see a conversation. Access is granted on a conversation group: a conversation and its
-- forks (memory-service) share one group and one set of members. A conversation with no group_id
-- is its own group (every conversation written through EverMemOS, ARK or the Memory Agent), so
-- the group id of a conversation is COALESCE(group_id, id).
ALTER TABLE conversations ADD COLUMN group_id text;
CREATE INDEX conversations_group_idx ON conversations (group_id) WHERE group_id IS NOT NULL;

-- Only people (JWT subjects) are members; agents holding an API key act across users.
CREATE TABLE conversation_memberships (
  group_id     text NOT NULL,
  user_id      text NOT NULL,
  access_level text NOT NULL CHECK (access_level IN ('owner', 'manager', 'writer', 'reader')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX conversation_memberships_user_idx ON conversation_memberships (user_id, group_id);
-- A group has at most one owner at a time; a transfer changes two rows in one transaction.
CREATE UNIQUE INDEX conversation_memberships_one_owner ON conversation_memberships (group_id) WHERE access_level = 'owner';

-- The ids of the conversations a user may reach with one of the given levels: the groups they are
-- a member of (a group's root conversation has the group's id) and the forks in those groups.
-- A plain SQL function, so the planner inlines it into the queries that filter by it.
CREATE FUNCTION conversations_visible_to(p_user text, p_levels text[]) RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT m.group_id FROM conversation_memberships m
   WHERE m.user_id = p_user AND m.access_level = ANY (p_levels)
  UNION
  SELECT c.id FROM conversations c
    JOIN conversation_memberships m ON m.group_id = c.group_id
   WHERE m.user_id = p_user AND m.access_level = ANY (p_levels)
$$;
