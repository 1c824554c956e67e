-- The small group-side tables' keys take their shard column (docs/store.md): Citus enforces a key
-- only within a shard, so one without the group cannot exist on a distributed table. Each id
-- stays unique in practice without a global constraint, by how it is made.

-- A removal's id comes from the table's sequence, so (group_id, id) is as unique as id was. An
-- import brings ids of its own: refuseTakenIds refuses one another group or person holds.
ALTER TABLE conversation_membership_removals
  DROP CONSTRAINT conversation_membership_removals_pkey,
  ADD CONSTRAINT conversation_membership_removals_pkey PRIMARY KEY (group_id, id);

-- A group has one metadata row (the primary key is group_id), so its id needs no key of its own:
-- it is drawn at random (96 bits) and no statement looks a row up by it. The import skips a row
-- whose id is stored, as the dropped key made it do.
ALTER TABLE conversation_meta DROP CONSTRAINT conversation_meta_id_key;

-- A transfer's id is a random UUID the API draws for the offer; the import skips one whose id
-- is stored, as the old key made it do. Reads by id alone (the API has only the id) keep an index.
ALTER TABLE conversation_ownership_transfers
  DROP CONSTRAINT conversation_ownership_transfers_pkey,
  ADD CONSTRAINT conversation_ownership_transfers_pkey PRIMARY KEY (group_id, id);
CREATE INDEX conversation_ownership_transfers_id_idx ON conversation_ownership_transfers (id);

-- A request's outcome lives with the group it wrote to, so the write and its outcome commit on one
-- shard: the group of the conversation its group_id names (a fork's root), else that id (a
-- conversation not stored is its own group), else the request itself, for one that names none
-- (the default metadata, an event too broken to name a group). Computed from group_id, which 0037's
-- conversations.group_key copies, since a fresh database applies this file first.
ALTER TABLE request_outcomes ADD COLUMN group_key text;
UPDATE request_outcomes o SET group_key = COALESCE(
  (SELECT COALESCE(c.group_id, c.id) FROM conversations c WHERE c.id = o.group_id), o.group_id, o.request_id);
ALTER TABLE request_outcomes ALTER COLUMN group_key SET NOT NULL;
-- The request id is the input event's id, drawn once by whoever sent it, and every writer derives
-- the group from the event the same way, so (group_key, request_id) holds as request_id did.
ALTER TABLE request_outcomes
  DROP CONSTRAINT request_outcomes_pkey,
  ADD CONSTRAINT request_outcomes_pkey PRIMARY KEY (group_key, request_id);
-- the status lookup has the request id alone
CREATE INDEX request_outcomes_request_idx ON request_outcomes (request_id);
