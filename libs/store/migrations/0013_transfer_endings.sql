-- A pending ownership transfer also ends untaken: the owner withdraws it ('withdrawn'), or its
-- recipient stops being a member or the group is deleted ('cancelled'), in the transaction of that
-- change. Before, such an offer stayed pending and a removed member could still accept it.
ALTER TABLE conversation_ownership_transfers DROP CONSTRAINT conversation_ownership_transfers_status_check;
ALTER TABLE conversation_ownership_transfers ADD CONSTRAINT conversation_ownership_transfers_status_check
  CHECK (status IN ('pending', 'accepted', 'declined', 'superseded', 'withdrawn', 'cancelled'));

-- Offers already left behind by a removal or a deletion (or made to someone who never was a member) end now.
UPDATE conversation_ownership_transfers t SET status = 'cancelled', decided_at = now()
 WHERE t.status = 'pending'
   AND (NOT EXISTS (SELECT 1 FROM conversation_memberships m WHERE m.group_id = t.group_id AND m.user_id = t.to_user_id)
        OR NOT EXISTS (SELECT 1 FROM conversations c WHERE COALESCE(c.group_id, c.id) = t.group_id AND c.deleted_at IS NULL));
