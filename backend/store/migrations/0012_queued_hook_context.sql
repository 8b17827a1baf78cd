-- 0012: a queued message keeps what its UserPromptSubmit hooks added. The hooks run
-- once, when the message is queued; their context (additionalContext or plain stdout, a JSON
-- array of strings) is stored with the message in the same transaction, and delivered as
-- framed note rows right after the user row that delivers it, even after a restart.
ALTER TABLE queued_messages ADD COLUMN hook_context TEXT NOT NULL DEFAULT '[]';
