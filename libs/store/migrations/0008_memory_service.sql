-- The memory-service family: conversations with titles and metadata, forks, soft deletion of a
-- whole fork group, and ownership transfers.
ALTER TABLE conversations
  ADD COLUMN title                      text,
  ADD COLUMN metadata                   jsonb NOT NULL DEFAULT '{}',
  -- The conversation a fork was made from, and the message just before the fork point there
  -- (NULL when the fork starts before the first message), as the API reports them...
  ADD COLUMN forked_at_conversation_id  text,
  ADD COLUMN forked_at_message_id       text,
  -- ...and where that message is stored, so a fork's view (its ancestors' messages up to the
  -- fork point, then its own) is found without copying anything.
  ADD COLUMN fork_source_conversation_id text,
  ADD COLUMN fork_source_seq            bigint,
  ADD COLUMN deleted_at                 timestamptz;

ALTER TABLE request_outcomes DROP CONSTRAINT request_outcomes_kind_check;
ALTER TABLE request_outcomes ADD CONSTRAINT request_outcomes_kind_check CHECK (kind IN ('message', 'conversation_meta', 'conversation'));

-- A transfer the owner asked for; the recipient accepts or declines it. One pending per group.
CREATE TABLE conversation_ownership_transfers (
  id              text PRIMARY KEY,
  group_id        text NOT NULL,
  conversation_id text NOT NULL,
  from_user_id    text NOT NULL,
  to_user_id      text NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'superseded')),
  created_at      timestamptz NOT NULL DEFAULT now(),
  decided_at      timestamptz
);
CREATE UNIQUE INDEX conversation_ownership_transfers_pending ON conversation_ownership_transfers (group_id) WHERE status = 'pending';
CREATE INDEX conversation_ownership_transfers_to_idx ON conversation_ownership_transfers (to_user_id) WHERE status = 'pending';

-- A deleted group is nobody's to see any more, in any family.
CREATE OR REPLACE FUNCTION conversations_visible_to(p_user text, p_levels text[]) RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT m.group_id FROM conversation_memberships m
   WHERE m.user_id = p_user AND m.access_level = ANY (p_levels)
     AND NOT EXISTS (SELECT 1 FROM conversations d WHERE d.id = m.group_id AND d.deleted_at IS NOT NULL)
  UNION
  SELECT c.id FROM conversations c
    JOIN conversation_memberships m ON m.group_id = c.group_id
   WHERE m.user_id = p_user AND m.access_level = ANY (p_levels) AND c.deleted_at IS NULL
$$;
