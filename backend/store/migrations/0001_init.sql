-- 0001: sessions, their append-only rows (chunks), runs, approval rules,
-- settings, and the full-text index over the rows.
-- Times are unix milliseconds (UTC).

CREATE TABLE sessions (
  id         TEXT PRIMARY KEY,
  title      TEXT NOT NULL,
  workspace  TEXT NOT NULL DEFAULT '',
  model      TEXT NOT NULL DEFAULT '',
  -- Lineage is a plain value, not a foreign key: deleting a parent must
  -- never break (or cascade into) its forks.
  parent_id  TEXT NOT NULL DEFAULT '',
  fork_seq   INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  archived   INTEGER NOT NULL DEFAULT 0,
  -- Maintained by Append in the same transaction as the rows:
  -- last_seq gives gap-free numbering without a MAX() scan, pending holds
  -- the tool calls ([{"id","name"}]) of the last assistant turn that still
  -- wait for a result, which is what repair-on-open answers.
  last_seq   INTEGER NOT NULL DEFAULT 0,
  pending    TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX sessions_updated ON sessions(updated_at);
CREATE INDEX sessions_pending ON sessions(id) WHERE pending <> '[]';

CREATE TABLE chunks (
  id         INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('user','assistant','tool_result','approval','summary','system')),
  payload    TEXT NOT NULL,
  run_id     TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  UNIQUE (session_id, seq)
);

-- Rows are history: earlier turns are never edited (provider prompt caches
-- and replay depend on it).
CREATE TRIGGER chunks_append_only BEFORE UPDATE ON chunks
BEGIN
  SELECT RAISE(ABORT, 'chunks are append-only');
END;

-- What the search sees of each row: user, assistant, summary and system
-- text, tool names with their raw arguments, tool results, and the reason a
-- person typed with an approval decision.
CREATE VIEW chunk_text AS
SELECT id, CASE kind
  WHEN 'assistant' THEN concat_ws(char(10),
      nullif(json_extract(payload, '$.text'), ''),
      (SELECT group_concat(json_extract(value, '$.name') || ' ' || json_extract(value, '$.arguments'), char(10))
         FROM json_each(payload, '$.tool_calls')))
  WHEN 'tool_result' THEN json_extract(payload, '$.content')
  WHEN 'approval' THEN nullif(json_extract(payload, '$.reason'), '')
  ELSE json_extract(payload, '$.text')
END AS body
FROM chunks;

-- External-content FTS5 table: the text lives once, in chunks.payload; the
-- index is kept in sync by the triggers below.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  body, content='chunk_text', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2'
);

CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks
BEGIN
  INSERT INTO chunks_fts(rowid, body) SELECT id, body FROM chunk_text WHERE id = new.id;
END;

CREATE TRIGGER chunks_fts_delete BEFORE DELETE ON chunks
BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, body)
    SELECT 'delete', id, body FROM chunk_text WHERE id = old.id;
END;

CREATE TABLE runs (
  id                 TEXT PRIMARY KEY,
  session_id         TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  model              TEXT NOT NULL DEFAULT '',
  system_prompt_hash TEXT NOT NULL DEFAULT '',
  budgets            TEXT NOT NULL DEFAULT '{}',
  status             TEXT NOT NULL,
  output             TEXT NOT NULL DEFAULT '',
  turns              INTEGER NOT NULL DEFAULT 0,
  tool_calls         INTEGER NOT NULL DEFAULT 0,
  input_tokens       INTEGER NOT NULL DEFAULT 0,
  output_tokens      INTEGER NOT NULL DEFAULT 0,
  cost_usd           REAL NOT NULL DEFAULT 0,
  started_at         INTEGER NOT NULL,
  ended_at           INTEGER,
  error              TEXT NOT NULL DEFAULT '',
  -- Who runs it: repair-on-open leaves alone a run whose process is alive
  -- (the desktop app mid-run while `loopdesk sessions list` opens the file).
  pid                INTEGER NOT NULL DEFAULT 0,
  host               TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runs_session ON runs(session_id, started_at);
CREATE INDEX runs_running ON runs(session_id) WHERE status = 'running';

CREATE TABLE rules (
  id         TEXT PRIMARY KEY,
  tool       TEXT NOT NULL,
  pattern    TEXT NOT NULL DEFAULT '',
  effect     TEXT NOT NULL CHECK (effect IN ('allow','ask','deny')),
  scope      TEXT NOT NULL CHECK (scope IN ('session','workspace')),
  scope_id   TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX rules_scope ON rules(scope, scope_id);

CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
