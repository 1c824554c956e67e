-- Erasing a person: one job per request, run by the converter (the request is an event like any
-- other write), leased like an eviction job so that one worker at a time holds it and a worker
-- that dies mid-way is taken over where it stopped. The job goes through its steps in order; each
-- batch of a step commits together with the job's counts and its place, so nothing is counted
-- twice or lost. The row keeps the person's id (the receipt is of them) and numbers, never content.
CREATE TABLE erasure_jobs (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id          text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  -- who asked: 'user:<id>', 'agent:<client>' or 'local:<id>'; self is true when the person asked for themself
  requested_by     text NOT NULL,
  self             boolean NOT NULL DEFAULT false,
  justification    text,
  -- the step the job is at (see libs/store/src/erasure-steps.ts) and how many passes it made
  step             text NOT NULL DEFAULT 'owned-conversations',
  passes           integer NOT NULL DEFAULT 0,
  -- per family, per store: what was removed or rewritten so far
  counts           jsonb NOT NULL DEFAULT '{}',
  -- conversations removed whose response streams (Redis) are not discarded yet: written with the
  -- batch, cleared once discarded, so a crash in between is redone
  streams_to_discard text[] NOT NULL DEFAULT '{}',
  attempts         integer NOT NULL DEFAULT 0,
  lease_owner      text,
  leased_until     timestamptz,
  error            text,
  requested_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  started_at       timestamptz,
  completed_at     timestamptz
);
CREATE INDEX erasure_jobs_open_idx ON erasure_jobs (leased_until) WHERE status IN ('pending', 'running');
CREATE INDEX erasure_jobs_user_idx ON erasure_jobs (user_id, requested_at);

-- What an erasure looks for in every conversation: a person's messages by sender, their KAOS
-- sessions, the transfers they are party to (memberships are already indexed by person).
CREATE INDEX messages_sender_idx ON messages (sender_id);
CREATE INDEX kaos_sessions_user_idx ON kaos_sessions (user_id);
CREATE INDEX conversation_ownership_transfers_from_idx ON conversation_ownership_transfers (from_user_id);
