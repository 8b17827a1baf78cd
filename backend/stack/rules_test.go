package stack_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A child session is under its parent's session rules (and its own), not under another
// session's; a fork is not a child and inherits nothing.
func TestChildSessionsInheritTheParentsSessionRules(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ws := t.TempDir()
	parent, _ := db.CreateSession(ctx, store.NewSession{Title: "p", Workspace: ws})
	other, _ := db.CreateSession(ctx, store.NewSession{Title: "o", Workspace: ws})
	child, err := db.CreateSession(ctx, store.NewSession{Title: "c", Workspace: ws, ParentID: parent.ID, ParentCallID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	grand, _ := db.CreateSession(ctx, store.NewSession{Title: "g", Workspace: ws, ParentID: child.ID, ParentCallID: "t2"})
	for _, r := range []store.NewRule{
		{Tool: "run_shell_command", Pattern: "rm *", Effect: store.EffectDeny, Scope: store.ScopeSession, ScopeID: parent.ID},
		{Tool: "write_file", Effect: store.EffectAllow, Scope: store.ScopeSession, ScopeID: other.ID},
		{Tool: "read_file", Effect: store.EffectAllow, Scope: store.ScopeWorkspace, ScopeID: ws},
	} {
		if _, err := db.AddRule(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	tools := func(id string) map[string]int {
		rs, err := stack.Rules{DB: db}.ListRules(ctx, id, ws)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, r := range rs {
			out[r.Tool]++
		}
		return out
	}
	for _, id := range []string{child.ID, grand.ID} {
		got := tools(id)
		if got["run_shell_command"] != 1 || got["read_file"] != 1 || got["write_file"] != 0 {
			t.Fatalf("rules of %s: %v (want the parent's session rule once and the workspace's)", id, got)
		}
	}
	if got := tools(other.ID); got["run_shell_command"] != 0 {
		t.Fatalf("another session got the parent's rule: %v", got)
	}
}
