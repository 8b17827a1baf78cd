-- 0011: hook rows found without reading every row. Settings -> Hooks and the window's hooks
-- banner read the latest hook rows of a folder's sessions (RecentHookRuns) at every run start
-- and end; without an index that scanned every chunk of the database (profiled in the window
-- with 110,000 rows: about 23 ms of SQLite per call, docs/benchmarks.md). Hook rows are few.
-- (Numbered by the perf branch; renumber at merge if 0011 is taken.)
CREATE INDEX chunks_hook ON chunks(created_at) WHERE kind = 'hook';
