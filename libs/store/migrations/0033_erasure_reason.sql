-- Why an erasure has not finished, or why it failed: the kinds of the person's own data a pass
-- found again, or the step a try gave up in (never content). Shown on the receipt as `reason`, so a
-- job held back says by what instead of failing without a word (issue 49, item 11).
ALTER TABLE erasure_jobs ADD COLUMN reason text;

