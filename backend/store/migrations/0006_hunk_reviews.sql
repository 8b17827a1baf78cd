-- Review state of each hunk of a session's file changes (backend/checkpoint,
-- docs/checkpoints.md). A hunk is named by the row whose change it belongs
-- to (seq), the path and its number within that row and path (from 1): the
-- hunks of one change are computed the same way every time from its stored
-- before and after contents, so the name is stable. No row = unreviewed.
-- note_seq is the note row a revert added (0 for kept).
CREATE TABLE cp_reviews (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  path       TEXT NOT NULL,
  hunk       INTEGER NOT NULL,
  state      TEXT NOT NULL CHECK (state IN ('kept','reverted')),
  note_seq   INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq, path, hunk)
);
