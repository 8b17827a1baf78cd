// Package cli implements the command line of the loopdesk binary: Main (main.go) dispatches
// every subcommand named in Commands, and decides when the window opens instead. Each
// subcommand takes its arguments and output streams explicitly and returns the process exit
// status, so tests call them directly. The contract (flags, JSON lines, exit codes) is
// docs/cli.md.
//
//   - `loopdesk run` (run.go, run_output.go, run_files.go, review_prompt.go): the agent headless
//     in a folder, asking on the terminal or denying without one; the human output ends with the
//     files the run changed. It says what it does with a flag instead of ignoring it
//     (run_notices.go): `--base-url` on a provider of providers.json exits 2; a
//     `--thinking-budget` below the provider's minimum is raised, with a line on stderr, and
//     run_started carries the value used (`thinking_budget`); `--image` files a text-only model
//     is not sent are named on stderr and in run_started (`images_dropped: [{"path","reason"}]`).
//   - `loopdesk sessions list|show|fork|search|export|import|delete|plan|changes|restore|revert|
//     totals` (sessions.go, forks.go, changes.go, hunks.go, plan.go): the journal. `sessions plan
//     ID [--json]` prints the session's pinned plan as the window pins it (store.LatestPlan):
//     `{"explanation","plan":[{"step","status"}],"seq"}`, or `null` with exit 0 when there is none.
//   - `loopdesk sessions regenerate|edit|retry` (versions.go): the window's conversation
//     controls through the use-case layer (backend/chat), with run's flags, output and exit
//     statuses (runAgentWith).
//   - `loopdesk inbox [dismiss RUN_ID]`, `loopdesk approve|deny CALL_ID` (inbox.go): what waits
//     for the person in the window of the database and in every run or acp process registered
//     with it (backend/inbox), answered in whichever process holds the call. `run` and `acp`
//     register when a window has their database open (run_inbox.go); `run` without a terminal
//     then waits for the inbox instead of denying, and with one its prompt closes when the
//     inbox answers first.
//   - `loopdesk settings` (settings.go): the effective settings and where each comes from.
//   - `loopdesk mcp list` (mcp.go): the MCP servers and their health.
//   - `loopdesk acp` (acp.go): the agent for editors over ACP on stdin and stdout.
//   - `loopdesk agents list` (agents.go): the agent definitions a task call can name.
//   - `loopdesk hooks list|trust` (hooks.go): a folder's hooks; trust its project hooks.
//   - `loopdesk skills list|trust|untrust` (skills.go): a folder's skills; trust a project
//     skill's SKILL.md so its allowed-tools may pre-approve calls.
//   - `loopdesk db check|recover|backup|restore` (db.go): the database file itself. Every other
//     command first passes refuseDamaged: a file store.Open would refuse (damaged, or from a
//     newer Loopdesk) stops it with exit 1 and the store's one message.
//   - `loopdesk help`, `loopdesk version`, and the window's own flags (window_*.go).
package cli
