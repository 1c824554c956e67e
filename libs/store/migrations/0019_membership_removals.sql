-- A removed membership, kept until retention evicts it (memory-service's soft-deleted memberships,
-- `resourceTypes: ["conversation_memberships"]`). It grants nothing: access is read from
-- conversation_memberships alone, from which the member is gone. It records who had which level
-- of a group until when, for the admins' audit, and goes with its group when the group is purged.
CREATE TABLE conversation_membership_removals (
  id           bigserial PRIMARY KEY,
  group_id     text NOT NULL,
  user_id      text NOT NULL,
  access_level text NOT NULL,
  -- when the membership was made, and when it ended
  created_at   timestamptz NOT NULL,
  removed_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversation_membership_removals_group_idx ON conversation_membership_removals (group_id, user_id);
CREATE INDEX conversation_membership_removals_removed_idx ON conversation_membership_removals (removed_at);
