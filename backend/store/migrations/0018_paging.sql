-- 0018: reading a session by pages (paging.go). The rows the next request needs besides the
-- ones after the last compaction are the summary and system rows: a few in a session of any
-- length. This index finds them without reading the rows between; appends of other kinds do
-- not write it.
CREATE INDEX chunks_folds ON chunks(session_id, seq) WHERE kind IN ('summary', 'system');
