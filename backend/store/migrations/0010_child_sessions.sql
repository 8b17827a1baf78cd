-- 0010: child sessions. A task call starts a child session: parent_id names the
-- session whose call started it and parent_call_id that call's id. Forks keep parent_call_id ''
-- (they name the parent row by fork_seq instead).
ALTER TABLE sessions ADD COLUMN parent_call_id TEXT NOT NULL DEFAULT '';
CREATE INDEX sessions_parent_call ON sessions(parent_id, parent_call_id) WHERE parent_call_id <> '';
