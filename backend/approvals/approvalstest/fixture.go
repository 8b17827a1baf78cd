// Package approvalstest records sessions with known approval answers for the tests of the
// approval report (backend/approvals, `loopdesk approvals report`, the window's bindings).
package approvalstest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
)

// Workspace is the folder both recorded sessions work in.
const Workspace = "/src/app"

// step is one row, written Wait after the row before it.
type step struct {
	wait time.Duration
	row  store.NewChunk
}

// call is an assistant turn making one call.
func call(id, tool string, args any) store.NewChunk {
	b, _ := json.Marshal(args)
	return store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{
		ToolCalls: []store.ToolCall{{ID: id, Name: tool, Arguments: string(b)}}}}
}

// answer is the approval row of call id.
func answer(id, tool string, approved bool, by string) store.NewChunk {
	d := store.DecisionDenied
	if approved {
		d = store.DecisionApproved
	}
	return store.NewChunk{Kind: store.KindApproval, Payload: store.ApprovalPayload{CallID: id, Tool: tool, Decision: d, By: by}}
}

func result(id, tool string, sandboxed bool) store.NewChunk {
	return store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: id, Name: tool, Content: "ok", Sandboxed: sandboxed}}
}

// asked is a call the person answered after wait.
func asked(id, tool string, args any, approved bool, by string, wait time.Duration) []step {
	return []step{{time.Second, call(id, tool, args)}, {wait, answer(id, tool, approved, by)},
		{time.Second, result(id, tool, sandboxedCalls[id])}}
}

// sandboxedCalls ran confined by the sandbox.
var sandboxedCalls = map[string]bool{"a1": true, "a2": true}

// decidedBy is a call something other than the person decided at once.
func decidedBy(id, tool string, args any, approved bool, by string) []step {
	return asked(id, tool, args, approved, by, 10*time.Millisecond)
}

func sh(cmd string) map[string]any    { return map[string]any{"command": cmd} }
func file(path string) map[string]any { return map[string]any{"path": path, "content": "x"} }
func concat(parts ...[]step) (out []step) {
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// sessionA: shell commands and file writes in one session. The person denied
// "go test ./... -exec rm", so "go test *" must never be suggested.
var sessionA = concat(
	asked("a1", "run_shell_command", sh("go test ./store -run TestA"), true, "person", 2000*time.Millisecond),
	asked("a2", "run_shell_command", sh("go test ./store -run TestB"), true, "person:inbox", 4000*time.Millisecond),
	asked("a3", "run_shell_command", sh("go test ./... -exec rm"), false, "person", 5000*time.Millisecond),
	asked("a4", "write_file", file("docs/a.md"), true, "person", 3000*time.Millisecond),
	asked("a5", "write_file", file("docs/b.md"), true, "person", 500*time.Millisecond),
	asked("a6", "write_file", file("/etc/hosts"), false, "person", 6000*time.Millisecond),
	asked("a7", "mcp__github__create_issue", map[string]any{"title": "flaky"}, true, "person", 1500*time.Millisecond),
	decidedBy("a8", "read_file", map[string]any{"path": "go.mod"}, true, "mode:read-only"),
	decidedBy("a9", "run_shell_command", sh("git status"), true, "rule:R1"),
)

// sessionB: the same folder; network commands and writes outside the folder the person
// approved, which no suggestion may cover, and what rules, hooks and skills decided.
var sessionB = concat(
	asked("b1", "mcp__github__create_issue", map[string]any{"title": "slow"}, true, "person", 2500*time.Millisecond),
	asked("b2", "run_shell_command", map[string]any{"command": "curl https://x.example", "network": true}, true, "person", 800*time.Millisecond),
	asked("b3", "run_shell_command", map[string]any{"command": "curl https://y.example", "network": true}, true, "person", 700*time.Millisecond),
	asked("b4", "write_file", file("/tmp/out/a.md"), true, "person", 1000*time.Millisecond),
	decidedBy("b5", "run_shell_command", sh("rm -rf build"), false, "hook"),
	decidedBy("b6", "run_shell_command", sh("rm -rf /"), false, "rule:R2"),
	decidedBy("b7", "run_shell_command", sh("golangci-lint run"), true, "skill:lint"),
	decidedBy("b8", "edit_file", file("main.go"), true, "hook"),
	decidedBy("b9", "write_file", file("/tmp/out/b.md"), true, "mode:auto"),
)

// Expected* are the report's figures over both sessions.
const (
	ExpectedAsked = 11
	ExpectedP50   = 2000
	ExpectedP90   = 5000
)

// Record writes both sessions to a new database at path, on a clock starting at start, and
// returns their ids (A, then B).
func Record(ctx context.Context, path string, start time.Time) (a, b string, err error) {
	now := start
	db, err := store.OpenWith(ctx, path, store.Options{Now: func() time.Time { return now }})
	if err != nil {
		return "", "", err
	}
	defer db.Close()
	ids := make([]string, 2)
	for i, steps := range [][]step{sessionA, sessionB} {
		s, err := db.CreateSession(ctx, store.NewSession{Title: fmt.Sprintf("recorded %c", 'A'+i), Workspace: Workspace, Model: "m"})
		if err != nil {
			return "", "", err
		}
		ids[i] = s.ID
		for _, st := range steps {
			now = now.Add(st.wait)
			if _, err := db.Append(ctx, s.ID, "run"+s.ID, st.row); err != nil {
				return "", "", fmt.Errorf("record %s: %w", s.ID, err)
			}
		}
	}
	return ids[0], ids[1], nil
}
