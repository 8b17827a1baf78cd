-- 0016: the inbox. A rule may apply everywhere (scope 'everywhere', scope_id '*'), which the
-- first schema's CHECK refused: the table is rebuilt with the wider CHECK. A run that ended
-- is listed in the inbox until the person dismisses it (dismissed_at, milliseconds).
CREATE TABLE rules_0016 (
  id         TEXT PRIMARY KEY,
  tool       TEXT NOT NULL,
  pattern    TEXT NOT NULL DEFAULT '',
  effect     TEXT NOT NULL CHECK (effect IN ('allow','ask','deny')),
  scope      TEXT NOT NULL CHECK (scope IN ('session','workspace','everywhere')),
  scope_id   TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
INSERT INTO rules_0016(rowid, id, tool, pattern, effect, scope, scope_id, created_at)
  SELECT rowid, id, tool, pattern, effect, scope, scope_id, created_at FROM rules;
DROP TABLE rules;
ALTER TABLE rules_0016 RENAME TO rules;
CREATE INDEX rules_scope ON rules(scope, scope_id);

ALTER TABLE runs ADD COLUMN dismissed_at INTEGER;
CREATE INDEX runs_ended ON runs(ended_at) WHERE dismissed_at IS NULL;
