-- A person's groups, the inverse of conversation_memberships (docs/store.md): memberships are
-- distributed by their group, so a read scoped to a person (the conversations I may see, a search
-- across my groups) had to ask every shard which groups name them. This table holds the same rows
-- distributed by the person, so that read asks one shard, then reads each group by its key.
-- Every statement that writes a membership writes its row here too (repositories/membership-rows.ts).
CREATE TABLE person_groups (
  user_id      text NOT NULL,
  group_id     text NOT NULL,
  access_level text NOT NULL,
  CONSTRAINT person_groups_access_level_check CHECK (access_level IN ('owner', 'manager', 'writer', 'reader')),
  PRIMARY KEY (user_id, group_id)
);
-- a purge finds a group's rows by the group (not the table's shard column: it reaches every shard)
CREATE INDEX person_groups_group_idx ON person_groups (group_id);

INSERT INTO person_groups (user_id, group_id, access_level)
  SELECT user_id, group_id, access_level FROM conversation_memberships;

INSERT INTO store_distribution (table_name, kind, shard_column) VALUES
  ('person_groups', 'distributed', 'user_id');

-- visibleTo reads person_groups and the conversations by group_key itself: a SQL function over
-- distributed tables is what Citus cannot plan by shard.
DROP FUNCTION conversations_visible_to(text, text[]);
