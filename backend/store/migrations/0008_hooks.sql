-- 0008: hooks (backend/hooks). Every hook run is a `hook` row of its session, and the
-- person's trust in a folder's project hooks is kept by the sha256 of their configuration.

-- chunks gains the kinds 'hook' (and 'note' and 'usage', which the store already writes).
-- As in 0002: SQLite cannot alter a CHECK constraint, so the table is rebuilt with the same
-- ids (the full-text index keys on them and stays valid) and its view and triggers recreated.
DROP TRIGGER chunks_fts_insert;
DROP TRIGGER chunks_fts_delete;
DROP TRIGGER chunks_append_only;
DROP VIEW chunk_text;

CREATE TABLE chunks_new (
  id         INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('user','assistant','tool_result','approval','summary','system',
                                           'restore','note','usage','hook')),
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

-- As in 0002, plus hook rows: searchable by event, command, decision and reason, so
-- "why was this blocked" finds the row.
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
  WHEN 'hook' THEN concat_ws(char(10), 'hook', json_extract(payload, '$.event'), json_extract(payload, '$.command'),
      nullif(json_extract(payload, '$.decision'), ''), nullif(json_extract(payload, '$.reason'), ''))
  WHEN 'usage' THEN NULL
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

-- The folders whose project hooks the person trusted: the sha256 of the project hook
-- configuration they saw, and that configuration itself (so a change can be shown as a
-- difference). Any other hash is untrusted.
CREATE TABLE hook_trust (
  workspace  TEXT PRIMARY KEY,
  sha256     TEXT NOT NULL,
  config     TEXT NOT NULL,
  trusted_at INTEGER NOT NULL
);
