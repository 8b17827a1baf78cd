-- 0005: reserved for another branch (this file exists only so the hooks branch migrates
-- without a gap; drop it when merging: the real 0005 comes from its own branch).
SELECT 1;
