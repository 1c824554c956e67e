-- Periodic jobs that one replica at a time runs (the retention job): whoever holds the lease runs
-- it, renewing the lease with each batch; a replica that dies lets the lease run out and the next
-- run starts again (every batch finds what is still there, so a run redone removes nothing twice).
-- last_completed_at keeps replicas that wake up together from each running the job in turn.
CREATE TABLE job_leases (
  name              text PRIMARY KEY,
  owner             text,
  leased_until      timestamptz,
  last_completed_at timestamptz
);

-- Summaries are found by age (memories have their index; messages and KAOS events are probed per
-- conversation on the indexes they have, so the largest table gets no new one).
CREATE INDEX memory_created_idx ON memory (created_at);
