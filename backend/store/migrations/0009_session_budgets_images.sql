-- 0009: per-session budgets and the blobs of images. Each session keeps its own budgets
-- (store.SessionBudgets), set in the window's header as JSON; a field left out takes the saved
-- default, and a flag of `loopdesk run --session` overrides it.
ALTER TABLE sessions ADD COLUMN budgets TEXT NOT NULL DEFAULT '{}';

-- The person's images, stored once per content: a user row's payload names them
-- by hash (store.ImageRef); forks share them. The bytes are the original file as attached;
-- what a request sends is a scaled copy made when it is built (backend/images).
CREATE TABLE blobs (
  hash       TEXT PRIMARY KEY,  -- sha256 of data, hex
  mime       TEXT NOT NULL,
  width      INTEGER NOT NULL,
  height     INTEGER NOT NULL,
  data       BLOB NOT NULL,
  created_at INTEGER NOT NULL
);
