-- 0013: cheaper commits (issue 18). Every row the runner stores is one durable commit, so
-- what a commit writes besides the row is paid on every tool turn (docs/benchmarks.md,
-- "Cheaper commits").
--
-- 1. The full-text index catches up in batches instead of in every commit.
-- FTS5 writes a new segment, its structure record and the averages record in every
-- transaction that indexes anything, which made the search index the most expensive part of
-- a small append (the runner's commits before a tool runs and before the next model request;
-- docs/benchmarks.md, "Cheaper commits"). A new row now only records its id in
-- search_backlog; the store indexes the backlog in one go before every search and once 64
-- rows have waited (search.go), so a search always sees every committed row.
--
-- Invariant: a row of chunks is in chunks_fts exactly when its id is not in search_backlog.
-- Existing rows are all indexed, so the backlog starts empty.

CREATE TABLE search_backlog (
  id INTEGER PRIMARY KEY -- chunks.id of a row not yet in chunks_fts
);

DROP TRIGGER chunks_fts_insert;
DROP TRIGGER chunks_fts_delete;

CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks
BEGIN
  INSERT INTO search_backlog(id) VALUES (new.id);
END;

-- A row still in the backlog was never indexed: telling FTS5 to delete it would corrupt the
-- index, so only indexed rows are deleted from it.
CREATE TRIGGER chunks_fts_delete BEFORE DELETE ON chunks
BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, body)
    SELECT 'delete', id, body FROM chunk_text
    WHERE id = old.id AND NOT EXISTS (SELECT 1 FROM search_backlog WHERE id = old.id);
  DELETE FROM search_backlog WHERE id = old.id;
END;

-- 2. Two indexes on sessions that every append rewrote (updated_at moves and pending flips
-- with each row) and that no frequent query needs: the session list reads every session
-- anyway (a scan and a sort of the small sessions table), and repair-on-open looks for
-- sessions with pending calls once per open.
DROP INDEX sessions_updated;
DROP INDEX sessions_pending;
