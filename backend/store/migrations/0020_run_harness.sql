-- 0020: what Loopdesk itself added to each request of a run (run_started's harness_tokens, as
-- JSON), so the Budget tab shows the last run's figure when a session opens ('' for runs
-- recorded before it was kept, or by a runner not told how to count it).
ALTER TABLE runs ADD COLUMN harness_tokens TEXT NOT NULL DEFAULT '';
