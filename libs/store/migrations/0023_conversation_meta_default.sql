-- EverMemOS's default conversation metadata (its POST with `group_id: null`): what a group without
-- metadata of its own falls back to. One per deployment, so the table holds at most one row; it is
-- kept apart from conversation_meta because it is no conversation (no id to claim, list or purge).
CREATE TABLE conversation_meta_default (
  singleton               boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  id                      text NOT NULL UNIQUE DEFAULT substr(replace(gen_random_uuid()::text, '-', ''), 1, 24),
  version                 text,
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
