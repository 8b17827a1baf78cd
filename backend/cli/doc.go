// Package cli implements the headless subcommands of the loopdesk binary:
// `loopdesk run` (run.go) and `loopdesk sessions` (sessions.go). Each takes
// its arguments and output streams explicitly and returns the process exit
// status, so tests call them directly. The contract is docs/cli.md.
//
// `loopdesk sessions plan ID [--json]` (plan.go) prints the session's pinned plan, as the
// window pins it (store.LatestPlan): `{"explanation","plan":[{"step","status"}],"seq"}`, or
// `null` with exit 0 when there is none.
package cli
