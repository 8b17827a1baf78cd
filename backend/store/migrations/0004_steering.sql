-- 0004: steering. Each run records its mode (plan or execute) and the
-- instruction files (AGENTS.md) it was given, as [{"path","sha256","bytes","truncated"}].
-- Each session keeps the mode the window last used for it, and the approval mode the
-- person picked for it ("" = the saved default).
ALTER TABLE runs ADD COLUMN mode TEXT NOT NULL DEFAULT 'execute';
ALTER TABLE runs ADD COLUMN instructions TEXT NOT NULL DEFAULT '[]';
ALTER TABLE sessions ADD COLUMN mode TEXT NOT NULL DEFAULT 'execute';
ALTER TABLE sessions ADD COLUMN approve TEXT NOT NULL DEFAULT '';
