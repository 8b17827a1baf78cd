package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

func reviewCall(e *runEnv) []string {
	before := hunkLines(30)
	os.WriteFile(filepath.Join(e.ws, "a.txt"), []byte(strings.Join(before, "")), 0o644)
	after := hunkLines(30)
	after[2], after[26] = "THREE\n", "TWENTY-SEVEN\n"
	args, _ := json.Marshal(map[string]string{"path": "a.txt", "content": strings.Join(after, "")})
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: string(args)}), fakeai.Text("done"))
	return before
}

func TestRunApproveReviewOnATerminal(t *testing.T) {
	e := runNewEnv(t)
	old := runIsTerminal
	runIsTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { runIsTerminal = old })
	want := reviewCall(e)
	want[2] = "THREE\n" // hunk 1 kept, hunk 2 (line 27) dropped
	r := e.run(context.Background(), "k\nd\n", "--approve", "review", "edit")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "? review write_file") || !strings.Contains(r.stderr, "+TWENTY-SEVEN") {
		t.Errorf("the hunks were not shown:\n%s", r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(e.ws, "a.txt")); string(got) != strings.Join(want, "") {
		t.Fatalf("a.txt:\n%s", got)
	}
	reqs := e.srv.Requests()
	if body := string(reqs[1].Body); !strings.Contains(body, "dropped; lines 24-30 are as they were") {
		t.Errorf("the model was not told what was dropped:\n%s", body)
	}
}

func TestRunApproveReviewWithoutATerminalWritesNothing(t *testing.T) {
	e := runNewEnv(t)
	before := reviewCall(e)
	r := e.run(context.Background(), "", "--approve", "review", "edit")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(e.ws, "a.txt")); string(got) != strings.Join(before, "") {
		t.Fatalf("written without a terminal:\n%s", got)
	}
}

// A write an allow rule approves in mode review was not reviewed: it is written as asked,
// and the model is not told a person reviewed it.
func TestRunApproveReviewRuleAllowedCallIsNotReviewed(t *testing.T) {
	e := runNewEnv(t)
	db, err := store.Open(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.AddRule(context.Background(), store.NewRule{Tool: "write_file", Effect: store.EffectAllow, Scope: store.ScopeWorkspace, ScopeID: e.ws})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	reviewCall(e)
	if r := e.run(context.Background(), "", "--approve", "review", "edit"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(e.ws, "a.txt")); !strings.Contains(string(got), "TWENTY-SEVEN") || !strings.Contains(string(got), "THREE") {
		t.Fatalf("a.txt:\n%s", got)
	}
	reqs := e.srv.Requests()
	if body := string(reqs[1].Body); strings.Contains(body, "reviewed this change") {
		t.Fatalf("the model was told of a review that did not happen:\n%s", body)
	}
}
