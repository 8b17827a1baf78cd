-- Placeholder on the sbint branch only: the checkpoint branch's 0002_checkpoints.sql
-- replaces this file when both are merged (take theirs). Migrations are numbered
-- without gaps, and the sandbox's migration is 0003.
SELECT 1;
