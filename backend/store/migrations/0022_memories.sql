-- 0022: memories, what the person approved for later runs to carry (docs/memory.md).
--
-- A project memory applies to one folder (workspace, as sessions keep it), a personal one to
-- every folder (workspace ''). source_session/source_seq name the row that proposed it (the
-- assistant row with the remember call, source_call); NULL for one the person wrote or
-- accepted from an import (origin names the file). No foreign key: a memory outlives the
-- session it came from, whose id then names a session that is gone.
CREATE TABLE memories (
    id             TEXT PRIMARY KEY,
    scope          TEXT NOT NULL CHECK (scope IN ('project', 'personal')),
    workspace      TEXT NOT NULL DEFAULT '',
    text           TEXT NOT NULL,
    source_session TEXT,
    source_seq     INTEGER,
    source_call    TEXT NOT NULL DEFAULT '',
    origin         TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);
CREATE INDEX memories_scope ON memories(scope, workspace, created_at);

-- Entries read from files people already keep (Claude Code's MEMORY.md, an AGENTS.md
-- "## Memory" section): never a memory until the person accepts one.
CREATE TABLE memory_proposals (
    id         TEXT PRIMARY KEY,
    scope      TEXT NOT NULL CHECK (scope IN ('project', 'personal')),
    workspace  TEXT NOT NULL DEFAULT '',
    text       TEXT NOT NULL,
    origin     TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
