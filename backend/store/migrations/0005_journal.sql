-- Placeholder on the providers branch only: main's 0005_journal.sql (issue 17) takes this
-- file's place at merge. Migrations must be numbered without gaps, and this branch's
-- 0006 needs a 0005 to exist.
SELECT 1;
