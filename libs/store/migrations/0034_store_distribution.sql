-- How each table would be laid out on a distributed PostgreSQL (Citus), readable from SQL so that
-- the layouts and `create_distributed_table` can be driven from it (docs/store.md).
--   distributed: hash-sharded by shard_column, whose value is the conversation group the row
--                belongs to (its own id for a conversation that is its own group);
--   reference:   small, copied whole to every node (leases and job queues among them);
--   local:       the coordinator's alone (migrations, the embedded bus journal, this registry).
-- shard_column names the column the table is meant to be sharded by. Where the table does not yet
-- have it, or has keys, foreign keys or triggers that do not include it, the registry test
-- (libs/store/test/distribution.test.ts) lists the table as a blocker; every new table adds a
-- row here in the migration that creates it, or that test fails.
CREATE TABLE store_distribution (
  table_name   text PRIMARY KEY,
  kind         text NOT NULL CHECK (kind IN ('distributed', 'reference', 'local')),
  shard_column text,
  CHECK ((kind = 'distributed') = (shard_column IS NOT NULL))
);

INSERT INTO store_distribution (table_name, kind, shard_column) VALUES
  -- the conversation side: every row belongs to one group
  ('conversations',                    'distributed', 'group_key'),
  ('messages',                         'distributed', 'group_key'),
  ('request_outcomes',                 'distributed', 'group_key'),
  ('conversation_meta',                'distributed', 'group_id'),
  ('conversation_memberships',         'distributed', 'group_id'),
  ('conversation_membership_removals', 'distributed', 'group_id'),
  ('conversation_ownership_transfers', 'distributed', 'group_id'),
  ('memory',                           'distributed', 'group_key'),
  ('episodes',                         'distributed', 'group_key'),
  ('episodic_memories',                'distributed', 'group_key'),
  ('search_items',                     'distributed', 'group_key'),
  ('search_vectors',                   'distributed', 'group_key'),
  ('search_unembedded',                'distributed', 'group_key'),
  ('search_keyword_pending',           'distributed', 'group_key'),
  ('search_keyword_totals',            'distributed', 'group_key'),
  ('search_keyword_frequencies',       'distributed', 'group_key'),
  -- an ARK session and a KAOS conversation are each their own group: their id is the group key
  ('ark_sessions',                     'distributed', 'session_id'),
  ('stream_chunks',                    'distributed', 'session_id'),
  ('kaos_sessions',                    'distributed', 'conversation_id'),
  ('kaos_events',                      'distributed', 'conversation_id'),
  -- small and global: defaults, leases, the governance queues and the admin audit trail
  ('conversation_meta_default',        'reference',   NULL),
  ('job_leases',                       'reference',   NULL),
  ('erasure_jobs',                     'reference',   NULL),
  ('eviction_jobs',                    'reference',   NULL),
  ('audit_log',                        'reference',   NULL),
  -- the coordinator's own
  ('schema_migrations',                'local',       NULL),
  ('bus_journal',                      'local',       NULL),
  ('bus_journal_positions',            'local',       NULL),
  ('store_distribution',               'local',       NULL);
