-- Memory formation: episodes (spans of a conversation that memories are extracted from), the
-- episodic memories extracted from them, and one search index over messages and memories.

-- An episode is a closed span of a conversation's messages. Its source is the exact list of
-- message ids (a deleted message leaves the span, and the episode is extracted again without it).
-- One episode per start: a redelivered batch finds its episode and creates nothing.
CREATE TABLE episodes (
  id              bigserial PRIMARY KEY,
  conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  start_seq       bigint NOT NULL,
  end_seq         bigint NOT NULL,
  message_ids     text[] NOT NULL,
  start_time      timestamptz NOT NULL,
  end_time        timestamptz NOT NULL,
  close_reason    text NOT NULL CHECK (close_reason IN ('message_cap', 'token_cap', 'silence', 'idle', 'flush', 'topic')),
  -- pending: closed, waiting for extraction (or re-extraction); extracted: its memories are current;
  -- failed: the last try failed, tried again at next_attempt_at (an episode is never dropped)
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'extracted', 'failed')),
  -- bumped whenever the episode must be extracted again; memories carry the version they came from
  version         integer NOT NULL DEFAULT 1,
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- a worker that took the episode owns it until then; a crashed worker's claim simply runs out
  claimed_until   timestamptz,
  error           text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (conversation_id, start_seq),
  CHECK (end_seq >= start_seq)
);

CREATE INDEX episodes_conversation_end_idx ON episodes (conversation_id, end_seq DESC);
CREATE INDEX episodes_due_idx ON episodes (next_attempt_at) WHERE status <> 'extracted';

-- What extraction produced. A re-extraction inserts the new version and marks the old rows
-- superseded rather than deleting them, so a memory's history stays readable.
CREATE TABLE episodic_memories (
  id              text PRIMARY KEY,
  episode_id      bigint NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
  conversation_id text NOT NULL,
  version         integer NOT NULL,
  -- NULL: the group's narrative of the episode; otherwise the participant the memory is about
  user_id         text,
  title           text NOT NULL DEFAULT '',
  content         text NOT NULL,
  -- when the episode began (the time a reader asks about), and its end
  occurred_at     timestamptz NOT NULL,
  ended_at        timestamptz NOT NULL,
  message_ids     text[] NOT NULL,
  participants    text[] NOT NULL DEFAULT '{}',
  extractor       text NOT NULL,
  superseded_at   timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX episodic_memories_current_idx ON episodic_memories (conversation_id, occurred_at DESC) WHERE superseded_at IS NULL;
CREATE INDEX episodic_memories_episode_idx ON episodic_memories (episode_id);
CREATE INDEX episodic_memories_created_idx ON episodic_memories (created_at);

-- One row per searchable thing. The keyword side is a tsvector; the vector side is an untyped
-- vector plus the model that made it, so vectors of two models (or dimensions) never mix: search
-- reads only the configured model's rows, and the indexer re-embeds the others in the background.
-- The HNSW index is partial, per model and dimension; the indexer creates it for its model.
CREATE TABLE search_items (
  kind            text NOT NULL CHECK (kind IN ('message', 'episodic_memory')),
  -- a message: messages.id; a memory: episodic_memories.id
  item_id         text NOT NULL,
  conversation_id text NOT NULL,
  user_id         text,
  -- the text indexed: what a reader sees, with the speaker's name in front for a message
  content         text NOT NULL,
  occurred_at     timestamptz NOT NULL,
  message_ids     text[] NOT NULL,
  tsv             tsvector NOT NULL,
  embedding       vector,
  embedding_model text,
  indexed_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, item_id)
);

CREATE INDEX search_items_tsv_idx ON search_items USING gin (tsv);
CREATE INDEX search_items_scope_idx ON search_items (conversation_id, kind, occurred_at);
CREATE INDEX search_items_user_idx ON search_items (user_id, kind, occurred_at);
CREATE INDEX search_items_model_idx ON search_items (embedding_model);
