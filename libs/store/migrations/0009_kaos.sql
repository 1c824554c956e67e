-- KAOS agent memory: sessions in an agent's namespace and their typed events. A session is also a
-- conversation (its user and agent messages are canonical messages, for search, episodes and
-- summaries); a deleted session's conversation is marked deleted like a memory-service one, which
-- hides it in every family, and its next incarnation under the same id is a new conversation.
CREATE TABLE kaos_sessions (
  agent           text NOT NULL,
  session_id      text NOT NULL,
  conversation_id text NOT NULL UNIQUE REFERENCES conversations (id),
  app_name        text NOT NULL,
  user_id         text NOT NULL,
  -- creation order, which KAOS's listings follow (a dict keeps insertion order)
  ord             bigserial NOT NULL,
  -- the next event's number within the session; the latest MEMORY_MAX_SESSION_EVENTS are kept
  next_event      bigint NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (agent, session_id)
);
-- eviction and cleanup take an agent's least recently updated sessions
CREATE INDEX kaos_sessions_updated_idx ON kaos_sessions (agent, updated_at);
CREATE INDEX kaos_sessions_order_idx ON kaos_sessions (agent, ord);

CREATE TABLE kaos_events (
  conversation_id text NOT NULL REFERENCES kaos_sessions (conversation_id) ON DELETE CASCADE,
  seq             bigint NOT NULL,
  -- the idempotency key: a resent event finds its row and stores nothing
  event_id        text NOT NULL,
  occurred_at     timestamptz NOT NULL,
  event_type      text NOT NULL CHECK (event_type IN ('user_message', 'agent_response', 'tool_call', 'tool_result',
                                                      'delegation_request', 'delegation_response', 'error')),
  -- json, not jsonb: a client reads its content back with its keys in the order it wrote them
  content         json NOT NULL,
  metadata        json NOT NULL,
  PRIMARY KEY (conversation_id, seq),
  UNIQUE (conversation_id, event_id)
);
