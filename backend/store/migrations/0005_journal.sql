-- 0005: the journal keeps every fact.
--
-- Rows: the kind set is closed in Go (store.canonical refuses any other kind), so the
-- table no longer repeats it in a CHECK constraint that every new kind would have to
-- rebuild the table for. New kinds: 'note' (Loopdesk's framed note to the model) and
-- 'usage' (the spend of a model call that left no other row). The table is rebuilt with
-- the same ids (the full-text index keys on them); the view and triggers are recreated.
DROP TRIGGER chunks_fts_insert;
DROP TRIGGER chunks_fts_delete;
DROP TRIGGER chunks_append_only;
DROP VIEW chunk_text;

CREATE TABLE chunks_new (
  id         INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  kind       TEXT NOT NULL,
  payload    TEXT NOT NULL,
  run_id     TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  UNIQUE (session_id, seq)
);
INSERT INTO chunks_new(id, session_id, seq, kind, payload, run_id, created_at)
  SELECT id, session_id, seq, kind, payload, run_id, created_at FROM chunks;
DROP TABLE chunks;
ALTER TABLE chunks_new RENAME TO chunks;

-- The spend rows of a run, summed by RunCounters (FinishRun and repair).
CREATE INDEX chunks_run ON chunks(run_id, session_id) WHERE kind IN ('assistant', 'usage', 'summary');

CREATE TRIGGER chunks_append_only BEFORE UPDATE ON chunks
BEGIN
  SELECT RAISE(ABORT, 'chunks are append-only');
END;

-- As in 0002; note rows are searched by their text like user rows (the ELSE branch).
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

-- Runs count cache reads and writes (parts of input_tokens) apart, like the rows.
ALTER TABLE runs ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;

-- Messages the person queued while a run worked: not conversation rows until delivered
-- (then removed in the same transaction as the user row that delivers them), kept across
-- a crash or a restart, in order.
CREATE TABLE queued_messages (
  id         TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  pos        INTEGER NOT NULL,
  text       TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX queued_messages_session ON queued_messages(session_id, pos);
