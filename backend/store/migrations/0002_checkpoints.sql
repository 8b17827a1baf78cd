-- 0002: checkpoints (backend/checkpoint). What every file-changing tool call
-- changed in the session's folder, the content before and after, and the
-- `restore` row kind.

-- chunks gains the kind 'restore'. SQLite cannot alter a CHECK constraint,
-- so the table is rebuilt with the same ids (the full-text index keys on
-- them and stays valid); the view and triggers that name it are recreated.
DROP TRIGGER chunks_fts_insert;
DROP TRIGGER chunks_fts_delete;
DROP TRIGGER chunks_append_only;
DROP VIEW chunk_text;

CREATE TABLE chunks_new (
  id         INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('user','assistant','tool_result','approval','summary','system','restore')),
  payload    TEXT NOT NULL,
  run_id     TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  UNIQUE (session_id, seq)
);
INSERT INTO chunks_new(id, session_id, seq, kind, payload, run_id, created_at)
  SELECT id, session_id, seq, kind, payload, run_id, created_at FROM chunks;
DROP TABLE chunks;
ALTER TABLE chunks_new RENAME TO chunks;

CREATE TRIGGER chunks_append_only BEFORE UPDATE ON chunks
BEGIN
  SELECT RAISE(ABORT, 'chunks are append-only');
END;

-- As in 0001, plus restore rows: their text lists the restored paths.
CREATE VIEW chunk_text AS
SELECT id, CASE kind
  WHEN 'assistant' THEN concat_ws(char(10),
      nullif(json_extract(payload, '$.text'), ''),
      (SELECT group_concat(json_extract(value, '$.name') || ' ' || json_extract(value, '$.arguments'), char(10))
         FROM json_each(payload, '$.tool_calls')))
  WHEN 'tool_result' THEN json_extract(payload, '$.content')
  WHEN 'approval' THEN nullif(json_extract(payload, '$.reason'), '')
  WHEN 'restore' THEN concat_ws(char(10), 'restore',
      (SELECT group_concat(json_extract(value, '$.path'), char(10)) FROM json_each(payload, '$.restored')))
  ELSE json_extract(payload, '$.text')
END AS body
FROM chunks;

CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks
BEGIN
  INSERT INTO chunks_fts(rowid, body) SELECT id, body FROM chunk_text WHERE id = new.id;
END;

CREATE TRIGGER chunks_fts_delete BEFORE DELETE ON chunks
BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, body)
    SELECT 'delete', id, body FROM chunk_text WHERE id = old.id;
END;

-- File contents, content-addressed: a blob is the sha256 (hex) of a file's
-- raw bytes; its content is a list of chunks cut where the content itself
-- says (content-defined chunking), each chunk stored once, DEFLATE-
-- compressed, under the sha256 of its raw bytes. An edit in the middle of
-- a big file adds the one or two chunks it touched, not a copy of the file.
-- Freed by the triggers below once nothing refers to a blob.
CREATE TABLE cp_blobs (
  sha256 TEXT PRIMARY KEY,
  size   INTEGER NOT NULL
);
CREATE TABLE cp_chunks (
  sha256 TEXT PRIMARY KEY,
  data   BLOB NOT NULL
);
CREATE TABLE cp_blob_chunks (
  blob  TEXT NOT NULL, -- cp_blobs.sha256; removed by cp_blobs_free
  ord   INTEGER NOT NULL,
  chunk TEXT NOT NULL,
  PRIMARY KEY (blob, ord)
);
CREATE INDEX cp_blob_chunks_chunk ON cp_blob_chunks(chunk);

CREATE TRIGGER cp_blobs_free AFTER DELETE ON cp_blobs
BEGIN
  DELETE FROM cp_chunks WHERE sha256 IN (SELECT chunk FROM cp_blob_chunks WHERE blob = old.sha256)
    AND NOT EXISTS (SELECT 1 FROM cp_blob_chunks WHERE chunk = cp_chunks.sha256 AND blob <> old.sha256);
  DELETE FROM cp_blob_chunks WHERE blob = old.sha256;
END;

-- What the app last knew of each tracked path of a folder (the stat cache):
-- the "before" state of the next call. kind: file, dir or link. sha256 is
-- the content hash (files) and has a cp_blobs row unless the file was too
-- big (stored = 0); target is a link's target, never followed.
CREATE TABLE cp_files (
  root     TEXT NOT NULL,
  path     TEXT NOT NULL,
  kind     TEXT NOT NULL CHECK (kind IN ('file','dir','link')),
  mode     INTEGER NOT NULL,
  size     INTEGER NOT NULL,
  mtime_ns INTEGER NOT NULL,
  ctime_ns INTEGER NOT NULL,
  ino      INTEGER NOT NULL,
  sha256   TEXT NOT NULL DEFAULT '',
  target   TEXT NOT NULL DEFAULT '',
  stored   INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (root, path)
);
CREATE INDEX cp_files_sha ON cp_files(sha256) WHERE sha256 <> '';

-- One capture per file-changing tool call (or restore). seq is the row the
-- changes belong to (the call's result, the interrupted result repair adds,
-- or the restore row); 0 while the call runs.
CREATE TABLE cp_captures (
  id         INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  run_id     TEXT NOT NULL DEFAULT '',
  call_id    TEXT NOT NULL,
  root       TEXT NOT NULL,
  seq        INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE INDEX cp_captures_session ON cp_captures(session_id, seq);
CREATE INDEX cp_captures_root ON cp_captures(root, id);

-- One row per path a capture changed, with the state before and after
-- (b_kind/a_kind '' = absent).
CREATE TABLE cp_changes (
  capture_id INTEGER NOT NULL REFERENCES cp_captures(id) ON DELETE CASCADE,
  path       TEXT NOT NULL,
  change     TEXT NOT NULL CHECK (change IN ('created','modified','deleted','mode')),
  b_kind TEXT NOT NULL, b_mode INTEGER NOT NULL, b_size INTEGER NOT NULL, b_sha256 TEXT NOT NULL, b_target TEXT NOT NULL, b_stored INTEGER NOT NULL,
  a_kind TEXT NOT NULL, a_mode INTEGER NOT NULL, a_size INTEGER NOT NULL, a_sha256 TEXT NOT NULL, a_target TEXT NOT NULL, a_stored INTEGER NOT NULL,
  PRIMARY KEY (capture_id, path)
);
CREATE INDEX cp_changes_b ON cp_changes(b_sha256) WHERE b_sha256 <> '';
CREATE INDEX cp_changes_a ON cp_changes(a_sha256) WHERE a_sha256 <> '';

-- Deleting a session frees what only it used: its captures and changes go
-- by cascade, the folder's stat cache when no session works there any
-- more, and then every blob nothing refers to.
CREATE TRIGGER cp_changes_free AFTER DELETE ON cp_changes
BEGIN
  DELETE FROM cp_blobs WHERE sha256 IN (old.b_sha256, old.a_sha256)
    AND NOT EXISTS (SELECT 1 FROM cp_changes WHERE b_sha256 = cp_blobs.sha256)
    AND NOT EXISTS (SELECT 1 FROM cp_changes WHERE a_sha256 = cp_blobs.sha256)
    AND NOT EXISTS (SELECT 1 FROM cp_files WHERE sha256 = cp_blobs.sha256);
END;

CREATE TRIGGER cp_files_free AFTER DELETE ON cp_files
BEGIN
  DELETE FROM cp_blobs WHERE sha256 = old.sha256
    AND NOT EXISTS (SELECT 1 FROM cp_changes WHERE b_sha256 = old.sha256)
    AND NOT EXISTS (SELECT 1 FROM cp_changes WHERE a_sha256 = old.sha256)
    AND NOT EXISTS (SELECT 1 FROM cp_files WHERE sha256 = old.sha256);
END;

CREATE TRIGGER cp_files_replace AFTER UPDATE OF sha256 ON cp_files WHEN old.sha256 <> new.sha256
BEGIN
  DELETE FROM cp_blobs WHERE sha256 = old.sha256
    AND NOT EXISTS (SELECT 1 FROM cp_changes WHERE b_sha256 = old.sha256)
    AND NOT EXISTS (SELECT 1 FROM cp_changes WHERE a_sha256 = old.sha256)
    AND NOT EXISTS (SELECT 1 FROM cp_files WHERE sha256 = old.sha256);
END;

CREATE TRIGGER cp_sessions_free BEFORE DELETE ON sessions
BEGIN
  DELETE FROM cp_files WHERE root IN (SELECT DISTINCT root FROM cp_captures WHERE session_id = old.id)
    AND NOT EXISTS (SELECT 1 FROM cp_captures c WHERE c.root = cp_files.root AND c.session_id <> old.id);
END;
