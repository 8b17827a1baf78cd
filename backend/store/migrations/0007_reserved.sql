-- 0007: reserved for another branch (this file exists only so the hooks branch migrates
-- without a gap; drop it when merging: the real 0007 comes from its own branch).
SELECT 1;
