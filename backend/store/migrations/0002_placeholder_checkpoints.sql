-- 0002: placeholder on the steer branch only. The checkpoints branch owns version 2;
-- on merge this file is dropped in favour of that branch's 0002 migration.
SELECT 1;
