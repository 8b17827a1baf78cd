-- 0003: the sandbox a run's shell commands ran with (docs/sandbox.md): its mode
-- and what enforced it, e.g. "auto: bubblewrap 0.8.0 + Landlock ABI 7, no network",
-- or "auto: unconfined (no sandbox: ...)". Empty for runs made before this.
ALTER TABLE runs ADD COLUMN sandbox TEXT NOT NULL DEFAULT '';
