-- Conversations and their messages: the canonical store every API family writes through the converter.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE conversations (
  id          text PRIMARY KEY,
  source_api  text NOT NULL,
  -- next sequence number to hand out; bumped in the same transaction as the insert, so no gaps
  next_seq    bigint NOT NULL DEFAULT 0,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE messages (
  conversation_id text NOT NULL REFERENCES conversations (id),
  seq             bigint NOT NULL,
  message_id      text NOT NULL,
  sender_id       text NOT NULL,
  sender_name     text NOT NULL,
  role            text NOT NULL,
  content         text NOT NULL,
  created_at      timestamptz NOT NULL,
  stored_at       timestamptz NOT NULL DEFAULT now(),
  refer_list      jsonb NOT NULL DEFAULT '[]',
  metadata        jsonb NOT NULL DEFAULT '{}',
  source_api      text NOT NULL,
  PRIMARY KEY (conversation_id, seq),
  -- the idempotency key: a redelivered or resent message finds its row and stores nothing
  UNIQUE (conversation_id, message_id)
);

CREATE INDEX messages_created_at_idx ON messages (conversation_id, created_at DESC);
