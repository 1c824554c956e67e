-- Why an erasure has not finished, or why it failed: the kinds of the person's own data a pass
-- found again, or the step a try gave up in (never content). Shown on the receipt as `reason`, so a
-- job held back says by what instead of failing without a word (issue 49, item 11).
ALTER TABLE erasure_jobs ADD COLUMN reason text;

-- Writes that name a person ask, before they are applied, whether the person's erasure is open.
CREATE INDEX erasure_jobs_open_user_idx ON erasure_jobs (user_id) WHERE status IN ('pending', 'running');
