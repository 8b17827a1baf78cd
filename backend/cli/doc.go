// Package cli implements the headless subcommands of the loopdesk binary:
// `loopdesk run` (run.go) and `loopdesk sessions` (sessions.go). Each takes
// its arguments and output streams explicitly and returns the process exit
// status, so tests call them directly. The contract is docs/cli.md.
package cli
