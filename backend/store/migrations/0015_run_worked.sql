-- 0015: a run's own time in milliseconds, the person's waiting for approvals excluded: what
-- its time budget counted. A session opened later rebuilds its Time meter from it, not from
-- ended_at - started_at (which counts a call left waiting over lunch). NULL for runs recorded
-- before it was kept, and while a run goes on.
ALTER TABLE runs ADD COLUMN worked_ms INTEGER;
