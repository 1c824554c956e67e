-- The admin API's audit log and the jobs that evict what was soft-deleted long enough ago.

-- One row per admin or auditor call (and per refused attempt): who, in which role, did what to
-- what, why, when, and how much it touched. Never content: params hold ids, flags and limits,
-- counts hold numbers. Append-only; nothing in memstream updates or deletes a row.
CREATE TABLE audit_log (
  id            bigserial PRIMARY KEY,
  occurred_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  actor_kind    text NOT NULL CHECK (actor_kind IN ('user', 'agent', 'local', 'system')),
  actor_id      text NOT NULL,
  -- the role the call was made in; NULL when the caller held none (a refused attempt)
  role          text CHECK (role IN ('admin', 'auditor')),
  action        text NOT NULL,
  target        text,
  justification text,
  -- the HTTP status the caller was answered with
  status        integer NOT NULL,
  params        jsonb NOT NULL DEFAULT '{}',
  counts        jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, id);
CREATE INDEX audit_log_target_idx ON audit_log (target, id) WHERE target IS NOT NULL;

-- An eviction: the cutoff is fixed when the job is made, so a job resumed after a crash removes
-- exactly what the first try would have. One worker at a time holds a job's lease; a lease that
-- runs out (its process died) lets any replica take the job over where it stopped. Each batch's
-- removals and the job's counts commit together, so nothing is counted twice or lost.
CREATE TABLE eviction_jobs (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  retention_period text NOT NULL,
  cutoff           timestamptz NOT NULL,
  resource_types   text[] NOT NULL,
  requested_by     text NOT NULL,
  justification    text,
  -- what there was to evict when the job started, and how much of it is done: the progress
  total            integer NOT NULL DEFAULT 0,
  done             integer NOT NULL DEFAULT 0,
  counts           jsonb NOT NULL DEFAULT '{}',
  -- conversations purged whose copies outside the database (response streams in Redis) are not
  -- yet discarded: written with the batch, cleared once discarded, so a crash in between is redone
  streams_to_discard text[] NOT NULL DEFAULT '{}',
  attempts         integer NOT NULL DEFAULT 0,
  lease_owner      text,
  leased_until     timestamptz,
  error            text,
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  started_at       timestamptz,
  completed_at     timestamptz
);
CREATE INDEX eviction_jobs_open_idx ON eviction_jobs (leased_until) WHERE status IN ('pending', 'running');

-- Groups whose every conversation is deleted are found by when they were deleted.
CREATE INDEX conversations_deleted_idx ON conversations (deleted_at) WHERE deleted_at IS NOT NULL;
