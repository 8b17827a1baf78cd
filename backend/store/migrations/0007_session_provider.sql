-- 0007: a provider and model per session. The session keeps the provider its
-- next run uses (with the model already kept in sessions.model); each run records the
-- provider its model calls went to. '' is the provider named "default": the endpoint
-- configured before providers existed (OPENAI_BASE_URL, the window's saved endpoint).
ALTER TABLE sessions ADD COLUMN provider TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN provider TEXT NOT NULL DEFAULT '';
