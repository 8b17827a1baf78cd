-- 0008: hooks (backend/hooks). Every hook run is a `hook` row of its session (the kind set is
-- closed in Go since 0005, so the table needs no change), searchable by its event, command,
-- decision and reason; and the person's trust in a folder's project hooks is kept by the
-- sha256 of their configuration.

-- As in 0005, plus hook rows.
DROP TRIGGER chunks_fts_insert;
DROP TRIGGER chunks_fts_delete;
DROP VIEW chunk_text;

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
  WHEN 'usage' THEN NULL
  WHEN 'hook' THEN concat_ws(char(10), 'hook', json_extract(payload, '$.event'), json_extract(payload, '$.command'),
      nullif(json_extract(payload, '$.decision'), ''), nullif(json_extract(payload, '$.reason'), ''))
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
