// Package hooks runs the person's hooks with Claude Code's contract, so hooks written for
// Claude Code run unchanged, and enforces what Claude Code leaves loose.
//
// The contract:
//
//   - Configuration is Claude Code's: {"hooks": {"<Event>": [{"matcher": "...", "hooks":
//     [{"type": "command", "command": "...", "timeout": <seconds>}]}]}}, plus Loopdesk's
//     "onFailure": "ignore". Personal hooks: $XDG_CONFIG_HOME/loopdesk/hooks.json. Project
//     hooks: <folder>/.loopdesk/hooks.json and the "hooks" key of <folder>/.claude/settings.json.
//     Load reads them afresh each time; a file that cannot be parsed is reported (naming it)
//     and contributes nothing; unknown events and non-command hook types are skipped with a
//     report, never silently.
//   - Project hooks run only while trusted: trust is the sha256 of the project configuration
//     (Config.Text) kept in the database (store.HookTrust). Any edit changes the hash and
//     untrusts them; State shows the difference from what was trusted. Personal hooks always run.
//   - Matchers (tool events; SessionStart's source; PreCompact's trigger): "" or "*" match
//     all; names joined by "|" compare exactly; anything else is a regular expression searched
//     in the name. Tools match by Loopdesk's name, mcp__server__tool, and Claude Code's name
//     for the built-ins (Bash, Read, Write, Edit, Glob, Grep, LS).
//   - A hook runs as /bin/sh -c COMMAND in the folder, in its own process group, with one JSON
//     object on stdin (session_id, transcript_path — a JSON Lines file of the session's rows
//     written for it —, cwd, permission_mode, hook_event_name, and per event prompt;
//     tool_name (Claude Code's name for built-ins), tool_input (with Claude Code's file_path
//     beside path), tool_use_id; tool_response; source; stop_hook_active; trigger; message).
//     Its environment has no API key; CLAUDE_PROJECT_DIR and LOOPDESK_PROJECT_DIR name the
//     folder. The timeout (default 60 s) kills the whole group. Hooks of one event run in
//     parallel; Fire returns when the last ends.
//   - Exit 0: stdout may be JSON (continue/stopReason, systemMessage, decision "block" with
//     reason, hookSpecificOutput.permissionDecision allow|deny|ask with
//     permissionDecisionReason, updatedInput, additionalContext); plain stdout of
//     UserPromptSubmit and SessionStart is context. Exit 2: blocks, with stderr as the
//     reason (PreToolUse deny; UserPromptSubmit, PostToolUse and Stop block). Any other end —
//     another exit code, a crash, a timeout, unreadable JSON decisions — is a failure:
//     PreToolUse denies with "hook failed: <command>: <why>" unless the hook says
//     "onFailure": "ignore"; other events go on with a warning for the person.
//   - Answers combine: for PreToolUse any deny wins, else any ask, else any allow; for the
//     other events any block blocks; any "continue": false sets Outcome.Stop (the runner ends
//     the run, from every event, as hook_stopped). Outcome.Runs holds one store.HookPayload
//     per hook run (event, command, exit code, duration, decision — "stop" for a
//     continue: false —, reason, first 4 KB of stderr): the caller stores each as a `hook` row.
//
// How the runner combines a PreToolUse outcome with rules and modes is the approver's
// (tools.Request.Hook): a hook makes a call stricter than the rules, never looser. Engine is
// safe for concurrent use; it keeps no state but which untrusted configurations it has
// already reported.
package hooks
