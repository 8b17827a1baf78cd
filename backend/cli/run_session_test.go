package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A session whose header says "one turn, approve auto" is continued from the command line:
// the run uses them; a flag still wins.
func TestRunContinuingASessionUsesItsOwnSettings(t *testing.T) {
	e := runNewEnv(t)
	ctx := context.Background()
	db, err := store.Open(ctx, e.db)
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.CreateSession(ctx, store.NewSession{Title: "s", Workspace: e.ws, Model: "fake-model"})
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	err = db.SetSessionBudgets(ctx, s.ID, store.SessionBudgets{MaxTurns: &one})
	if err == nil {
		err = db.SetSessionMode(ctx, s.ID, store.SessionMode{Mode: store.ModeExecute, Approve: "auto"})
	}
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	list := fakeai.ToolCalls(fakeai.Call{Name: "list_dir", Arguments: `{"path":"."}`})
	e.srv.Enqueue(list, fakeai.Text("never reached: the session's limit is one turn"))
	var out, errb bytes.Buffer
	args := []string{"--db", e.db, "--session", s.ID, "--model", "fake-model", "--base-url", e.srv.URL(), "--json"}
	code := Run(ctx, append(args, "look around"), strings.NewReader(""), &out, &errb)
	if code != runExitBound {
		t.Fatalf("exit %d, want %d (the session's max_turns 1); stderr: %s", code, runExitBound, errb.String())
	}
	if !strings.Contains(out.String(), `"by":"mode:auto"`) {
		t.Errorf("the session's approval mode (auto) was not used:\n%s", out.String())
	}

	e.srv.Reset()
	e.srv.Enqueue(list, fakeai.Text("done"))
	out.Reset()
	code = Run(ctx, append(args, "--max-turns", "5", "again"), strings.NewReader(""), &out, &errb)
	if code != runExitCompleted || len(e.srv.Requests()) != 2 {
		t.Fatalf("--max-turns 5 over the session's 1: exit %d after %d calls; stderr %s", code, len(e.srv.Requests()), errb.String())
	}
}
