-- Conversation metadata (EverMemOS conversation-meta) and the outcome of every write request.

CREATE TABLE conversation_meta (
  group_id                text PRIMARY KEY,
  -- opaque public id, 24 hex digits like the reference's document ids
  id                      text NOT NULL UNIQUE DEFAULT substr(replace(gen_random_uuid()::text, '-', ''), 1, 24),
  version                 text NOT NULL,
  scene                   text NOT NULL,
  scene_desc              jsonb NOT NULL,
  name                    text NOT NULL,
  description             text NOT NULL,
  conversation_created_at timestamptz NOT NULL,
  default_timezone        text NOT NULL,
  user_details            jsonb NOT NULL DEFAULT '{}',
  tags                    jsonb NOT NULL DEFAULT '[]',
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);

-- One row per write request (the input event's id), written in the same transaction as the
-- write, so "stored" is never claimed for something that is not. The first outcome wins: a
-- redelivered event finds its row and is not reported again as a duplicate of itself.
CREATE TABLE request_outcomes (
  request_id    text PRIMARY KEY,
  kind          text NOT NULL CHECK (kind IN ('message', 'conversation_meta')),
  status        text NOT NULL CHECK (status IN ('stored', 'failed')),
  group_id      text,
  message_id    text,
  duplicate     boolean NOT NULL DEFAULT false,
  result        jsonb,
  error_code    text,
  error_message text,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX request_outcomes_created_at_idx ON request_outcomes (created_at);
