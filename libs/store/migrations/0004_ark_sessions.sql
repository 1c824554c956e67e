-- ARK's memory API: a global record id for messages, session completion, and relayed token chunks.

-- ARK clients see a numeric record id per message, unique across sessions, in storage order.
ALTER TABLE messages ADD COLUMN id bigserial;
CREATE INDEX messages_id_idx ON messages (id);

-- A session exists once it has messages (a conversation row) or chunks (a row here);
-- completed_at is set once, by the first complete call.
CREATE TABLE ark_sessions (
  session_id   text PRIMARY KEY,
  created_at   timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);

-- Token chunks posted to /stream/{id}, kept so a reader that reconnects from the beginning gets them.
CREATE TABLE stream_chunks (
  session_id text NOT NULL,
  chunk_seq  bigserial,
  chunk      jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (session_id, chunk_seq)
);
