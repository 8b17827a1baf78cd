-- 0013: cheaper commits. Every row the runner stores is one durable commit, so
-- what a commit writes besides the row is paid on every tool turn (docs/benchmarks.md,
-- "Cheaper commits").
--
-- 1. The full-text index catches up in batches instead of in every commit. FTS5 writes a
-- new segment, its structure record and the averages record in every transaction that
-- indexes anything, which made the search index the most expensive part of a small append
-- (the runner's commits before a tool runs and before the next model request). A new row is
-- now left out of chunks_fts; the store indexes every row left out in one statement before
-- every search and once 64 rows have waited (search.go), so a search still sees every
-- committed row.
--
-- Invariant: the rows in chunks_fts are exactly the rows of chunks whose id is at most the
-- highest id FTS5 holds (max(id) of chunks_fts_docsize, FTS5's table of one row per indexed
-- row). It holds because the rows left out are always indexed all at once (every id above
-- that mark), and a new row's id is above every id in chunks (SQLite gives max(id) + 1),
-- hence above the mark; deleting an indexed row deletes it from chunks_fts too, which can
-- only lower the mark to the next indexed row. Existing rows are all indexed.

DROP TRIGGER chunks_fts_insert;
DROP TRIGGER chunks_fts_delete;

-- A row above the mark was never indexed: telling FTS5 to delete it would corrupt the index.
CREATE TRIGGER chunks_fts_delete BEFORE DELETE ON chunks
WHEN old.id <= (SELECT coalesce(max(id), 0) FROM chunks_fts_docsize)
BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, body)
    SELECT 'delete', id, body FROM chunk_text WHERE id = old.id;
END;

-- 2. Two indexes on sessions that every append rewrote (updated_at moves and pending flips
-- with each row) and that no frequent query needs: the session list reads every session
-- anyway (a scan and a sort of the small sessions table), and repair-on-open looks for
-- sessions with pending calls once per open.
DROP INDEX sessions_updated;
DROP INDEX sessions_pending;
