-- 0019: where each run came from, for the inbox's ended list: the window, `loopdesk run`, or
-- `loopdesk acp` and the editor's client name ('' for runs recorded before it was kept; the
-- process's pid was kept already).
ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN origin_client TEXT NOT NULL DEFAULT '';
