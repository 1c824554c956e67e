-- The Memory Agent's rolling summaries (spec 004): one row per summarization, a version chain
-- through base_memory_id, and a status that the database itself keeps to one 'processing' row
-- per conversation.
CREATE TABLE memory (
  memory_id          bigserial PRIMARY KEY,
  conversation_id    text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  memory_text        text NOT NULL DEFAULT '',
  start_sequence     integer NOT NULL,
  end_sequence       integer NOT NULL,
  base_memory_id     bigint REFERENCES memory (memory_id),
  status             text NOT NULL DEFAULT 'completed' CHECK (status IN ('processing', 'completed', 'failed')),
  created_at         timestamptz NOT NULL DEFAULT now(),
  -- when the status last changed: a 'processing' row older than the timeout is stuck
  updated_at         timestamptz NOT NULL DEFAULT now(),
  generation_time_ms integer,
  -- which try this row is (1 + the failed tries right before it), and for a failed row when to try again
  attempts           integer NOT NULL DEFAULT 1,
  next_attempt_at    timestamptz,
  error              text,
  CHECK (start_sequence >= 0 AND end_sequence >= start_sequence)
);

-- The latest completed memory of a conversation (the spec's index).
CREATE INDEX idx_memory_conversation_status ON memory (conversation_id, status, end_sequence DESC);

-- The trigger is atomic across replicas: a second 'processing' row for a conversation cannot exist.
CREATE UNIQUE INDEX memory_one_processing_per_conversation ON memory (conversation_id) WHERE status = 'processing';
