-- The embedded mode's bus journal: records the in-process bus accepted, and where each consumer
-- group has got to, so a crash loses neither (Kafka keeps both in the distributed mode). The bus
-- trims records every group has passed, so the table holds the backlog, not the history.

CREATE TABLE bus_journal (
  topic         text NOT NULL,
  partition     integer NOT NULL,
  record_offset bigint NOT NULL,
  key           text,
  value         bytea NOT NULL,
  headers       jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (topic, partition, record_offset)
);

-- next_offset is the offset the group is given next, as a Kafka committed offset is.
CREATE TABLE bus_journal_positions (
  topic       text NOT NULL,
  group_id    text NOT NULL,
  partition   integer NOT NULL,
  next_offset bigint NOT NULL,
  PRIMARY KEY (topic, group_id, partition)
);
