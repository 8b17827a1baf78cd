-- 0017: organising many sessions, and what each costs on disk.
--
-- A session belongs to at most one project (a name; '' for none). The archived column has been
-- there since 0001; archiving now sets it (hidden from the list, still searchable and openable).
ALTER TABLE sessions ADD COLUMN project TEXT NOT NULL DEFAULT '';

-- bytes: the size of the session's rows as SQLite stores them, the records of its chunks that
-- dbstat counts as payload (store.SessionSize adds the blobs it uses). Kept by the trigger below
-- so the list never reads the rows to tell it. A chunks record is a one-byte header length, a
-- serial type per column (the rowid alias id is NULL: one byte, no body), then the values: a text
-- of L bytes has serial type 2L+13 (a varint), an integer 0 or 1 costs nothing (file format 4),
-- others 1, 2, 3, 4, 6 or 8 bytes by magnitude.
ALTER TABLE sessions ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;

-- The size of each row's record, once: the fill below and the trigger read it.
CREATE VIEW chunk_bytes AS
SELECT id, session_id, 2
  + ((CASE WHEN 2 * length(CAST(c.session_id AS BLOB)) + 13 < 128 THEN 1 WHEN 2 * length(CAST(c.session_id AS BLOB)) + 13 < 16384 THEN 2 WHEN 2 * length(CAST(c.session_id AS BLOB)) + 13 < 2097152 THEN 3 WHEN 2 * length(CAST(c.session_id AS BLOB)) + 13 < 268435456 THEN 4 ELSE 5 END) + length(CAST(c.session_id AS BLOB)))
  + (1 + (CASE WHEN c.seq IN (0, 1) THEN 0 WHEN c.seq BETWEEN -128 AND 127 THEN 1 WHEN c.seq BETWEEN -32768 AND 32767 THEN 2
      WHEN c.seq BETWEEN -8388608 AND 8388607 THEN 3 WHEN c.seq BETWEEN -2147483648 AND 2147483647 THEN 4
      WHEN c.seq BETWEEN -140737488355328 AND 140737488355327 THEN 6 ELSE 8 END))
  + ((CASE WHEN 2 * length(CAST(c.kind AS BLOB)) + 13 < 128 THEN 1 WHEN 2 * length(CAST(c.kind AS BLOB)) + 13 < 16384 THEN 2 WHEN 2 * length(CAST(c.kind AS BLOB)) + 13 < 2097152 THEN 3 WHEN 2 * length(CAST(c.kind AS BLOB)) + 13 < 268435456 THEN 4 ELSE 5 END) + length(CAST(c.kind AS BLOB)))
  + ((CASE WHEN 2 * length(CAST(c.payload AS BLOB)) + 13 < 128 THEN 1 WHEN 2 * length(CAST(c.payload AS BLOB)) + 13 < 16384 THEN 2 WHEN 2 * length(CAST(c.payload AS BLOB)) + 13 < 2097152 THEN 3 WHEN 2 * length(CAST(c.payload AS BLOB)) + 13 < 268435456 THEN 4 ELSE 5 END) + length(CAST(c.payload AS BLOB)))
  + ((CASE WHEN 2 * length(CAST(c.run_id AS BLOB)) + 13 < 128 THEN 1 WHEN 2 * length(CAST(c.run_id AS BLOB)) + 13 < 16384 THEN 2 WHEN 2 * length(CAST(c.run_id AS BLOB)) + 13 < 2097152 THEN 3 WHEN 2 * length(CAST(c.run_id AS BLOB)) + 13 < 268435456 THEN 4 ELSE 5 END) + length(CAST(c.run_id AS BLOB)))
  + (1 + (CASE WHEN c.created_at IN (0, 1) THEN 0 WHEN c.created_at BETWEEN -128 AND 127 THEN 1 WHEN c.created_at BETWEEN -32768 AND 32767 THEN 2
      WHEN c.created_at BETWEEN -8388608 AND 8388607 THEN 3 WHEN c.created_at BETWEEN -2147483648 AND 2147483647 THEN 4
      WHEN c.created_at BETWEEN -140737488355328 AND 140737488355327 THEN 6 ELSE 8 END)) AS bytes
FROM chunks c;

UPDATE sessions SET bytes = coalesce((SELECT sum(bytes) FROM chunk_bytes WHERE session_id = sessions.id), 0);

-- Rows are deleted only with their session (store.RemoveSession), whose bytes go with it: no
-- trigger on delete.
CREATE TRIGGER chunks_bytes_insert AFTER INSERT ON chunks
BEGIN
  UPDATE sessions SET bytes = bytes + (SELECT bytes FROM chunk_bytes WHERE id = new.id)
  WHERE id = new.session_id;
END;

-- Which sessions' rows show which image (blobs.hash): a deleted session's images that no other
-- session shows go with it, and a session's size counts its images, without reading rows.
CREATE TABLE blob_refs (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  hash       TEXT NOT NULL,
  PRIMARY KEY (session_id, hash)
) WITHOUT ROWID;
CREATE INDEX blob_refs_hash ON blob_refs(hash);

CREATE TRIGGER chunks_blob_refs AFTER INSERT ON chunks
WHEN new.kind = 'user' AND instr(new.payload, '"images"') > 0
BEGIN
  INSERT OR IGNORE INTO blob_refs(session_id, hash)
    SELECT new.session_id, json_extract(value, '$.hash') FROM json_each(new.payload, '$.images');
END;

INSERT OR IGNORE INTO blob_refs(session_id, hash)
  SELECT c.session_id, json_extract(j.value, '$.hash')
  FROM chunks c, json_each(c.payload, '$.images') j
  WHERE c.kind = 'user' AND instr(c.payload, '"images"') > 0;
