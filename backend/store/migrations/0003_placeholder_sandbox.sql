-- 0003: placeholder on the steer branch only. The sandbox branch owns version 3;
-- on merge this file is dropped in favour of that branch's 0003 migration.
SELECT 1;
