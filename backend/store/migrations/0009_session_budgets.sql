-- 0009: each session's own budgets (issue 20), set in the window's header as JSON
-- (store.SessionBudgets); a field left out takes the saved default, and a flag of
-- `loopdesk run --session` overrides it.
ALTER TABLE sessions ADD COLUMN budgets TEXT NOT NULL DEFAULT '{}';
