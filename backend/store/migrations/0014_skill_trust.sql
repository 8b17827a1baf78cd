-- 0014: the person's trust in a project skill's SKILL.md. A skill found in a folder's
-- .loopdesk/skills, .claude/skills or .agents/skills was written by the repository, not by
-- the person, so its allowed-tools pre-approve nothing until the person trusts that exact
-- file: its path (absolute, symbolic links resolved) and the sha256 of its bytes. An edited
-- file hashes differently and is untrusted again; trusting it again replaces the row.
CREATE TABLE skill_trust (
    path       TEXT PRIMARY KEY,
    sha256     TEXT NOT NULL,
    trusted_at INTEGER NOT NULL
);
