package desktop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

func lastRequest(t *testing.T, srv *fakeai.Server) []map[string]any {
	t.Helper()
	reqs := srv.Requests()
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Messages
}

// Sending while a run waits queues the message (visible, removable); it reaches the model
// after the turn's result, and a removed one never does.
func TestSendWhileRunningQueues(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, _ := app.NewSession(t.TempDir())
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "l1", Name: "list_dir", Arguments: `{"path":"."}`}), fakeai.Text("listed"))
	runID, err := app.SendMessage(s.ID, "list")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.waitFor(t, "approval_requested", func(ev map[string]any) bool { return ev["type"] == "approval_requested" })
	if id, err := app.SendMessage(s.ID, "then count them"); err != nil || id != runID {
		t.Fatalf("send while running: %q %v", id, err)
	}
	if _, err := app.SendMessage(s.ID, "forget it"); err != nil {
		t.Fatal(err)
	}
	q, _ := app.QueuedMessages(s.ID)
	if len(q) != 2 {
		t.Fatalf("queue %+v", q)
	}
	if view, _ := app.OpenSession(s.ID); len(view.Queued) != 2 {
		t.Fatalf("the opened session does not show the queue: %+v", view.Queued)
	}
	if ok, err := app.RemoveQueued(s.ID, q[1].ID); !ok || err != nil {
		t.Fatalf("remove: %v %v", ok, err)
	}
	app.rec.waitFor(t, "queue_changed", func(ev map[string]any) bool {
		return ev["type"] == "queue_changed" && len(ev["queued"].([]any)) == 1
	})
	if err := app.Decide(s.ID, "l1", desktop.DecisionInput{Approved: true}); err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("run %v", end)
	}
	msgs := lastRequest(t, srv)
	if last := msgs[len(msgs)-1]; last["role"] != "user" || last["content"] != "then count them" {
		t.Fatalf("last message %v", last)
	}
	if prev := msgs[len(msgs)-2]; prev["role"] != "tool" {
		t.Fatalf("the queued message did not follow the result: %v", prev)
	}
	for _, m := range msgs {
		if m["content"] == "forget it" {
			t.Fatal("a removed message reached the model")
		}
	}
}

// Plan mode refuses writes in Go; "Execute plan" switches the session to the approval mode
// picked and continues it; each run row records its mode.
func TestPlanThenExecutePlan(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	dir := t.TempDir()
	s, _ := app.NewSession(dir)
	if _, err := app.SetMode(s.ID, "plan", "auto"); err != nil {
		t.Fatal(err)
	}
	write := fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"plan.txt","content":"done"}`}
	srv.Enqueue(fakeai.ToolCalls(write), fakeai.Text("Plan:\n1. write plan.txt"))
	runID, err := app.SendMessage(s.ID, "make plan.txt")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	if _, err := os.Stat(filepath.Join(dir, "plan.txt")); !os.IsNotExist(err) {
		t.Fatalf("plan mode wrote: %v", err)
	}
	write.ID = "w2"
	srv.Enqueue(fakeai.ToolCalls(write), fakeai.Text("Done."))
	runID, err = app.ExecutePlan(s.ID, "auto")
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("execute run %v", end)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "plan.txt")); err != nil || string(b) != "done" {
		t.Fatalf("executing the plan did not write: %q %v", b, err)
	}
	view, _ := app.OpenSession(s.ID)
	if view.Mode.Mode != store.ModeExecute || view.Mode.Approve != "auto" || len(view.Runs) != 2 ||
		view.Runs[0].Mode != store.ModePlan || view.Runs[1].Mode != store.ModeExecute {
		t.Fatalf("mode %+v runs %+v", view.Mode, view.Runs)
	}
	if view.Totals.Runs != 2 || view.Totals.Turns != 4 || view.Totals.ToolCalls != 2 {
		t.Fatalf("totals %+v", view.Totals)
	}
}

// Compact up to here, undo it, the AGENTS.md list, and importing an export.
func TestCompactUndoInstructionsAndImport(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Use tabs."), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := app.NewSession(dir)
	files, err := app.Instructions(s.ID)
	if err != nil || len(files) != 1 || files[0].Preview != "Use tabs." || files[0].Scope != "folder" || files[0].Warning != "" {
		t.Fatalf("instructions %+v %v", files, err)
	}
	srv.Enqueue(fakeai.Text("one"), fakeai.Text("two"))
	for _, m := range []string{"first", "second"} {
		id, err := app.SendMessage(s.ID, m)
		if err != nil {
			t.Fatal(err)
		}
		app.rec.runFinished(t, id)
	}
	if msgs := lastRequest(t, srv); !strings.Contains(msgs[0]["content"].(string), "Use tabs.") {
		t.Fatalf("AGENTS.md not in the system message: %v", msgs[0])
	}
	srv.Enqueue(fakeai.Text("Earlier: said one."))
	id, err := app.CompactHere(s.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, id)
	view, _ := app.OpenSession(s.ID)
	last := view.Rows[len(view.Rows)-1]
	if last.Kind != store.KindSummary {
		t.Fatalf("no summary row: %+v", last)
	}
	if err := app.UndoCompaction(s.ID, last.Seq); err != nil {
		t.Fatal(err)
	}
	if err := app.UndoCompaction(s.ID, last.Seq); err == nil {
		t.Fatal("undoing twice was accepted")
	}
	rows, _ := app.RowsAfter(s.ID, last.Seq)
	if len(rows) != 1 || !strings.Contains(string(rows[0].Payload), `"undoes"`) {
		t.Fatalf("undo row %+v", rows)
	}
	// Export, then import through the file picker.
	db, _ := store.Open(context.Background(), app.dbPath)
	var buf bytes.Buffer
	_ = db.Export(context.Background(), s.ID, &buf)
	db.Close()
	file := filepath.Join(t.TempDir(), "s.jsonl")
	_ = os.WriteFile(file, buf.Bytes(), 0o644)
	app.dialogs.open = file
	imp, err := app.ImportSession()
	if err != nil || imp.ID == "" || imp.ID == s.ID {
		t.Fatalf("import %+v %v", imp, err)
	}
	a, _ := app.Totals(s.ID)
	b, _ := app.Totals(imp.ID)
	if a.Runs != 3 || a.Turns != b.Turns || a.InputTokens != b.InputTokens || a.Runs != b.Runs {
		t.Fatalf("totals after import %+v vs %+v", a, b)
	}
	app.dialogs.open = ""
	if none, err := app.ImportSession(); err != nil || none.ID != "" {
		t.Fatalf("cancelled picker: %+v %v", none, err)
	}
}

// "Always deny" from a card saves a deny rule that decides the next call; a rule can be
// edited in Settings.
func TestAlwaysDenyAndEditRule(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, _ := app.NewSession(t.TempDir())
	call := fakeai.Call{ID: "r1", Name: "run_shell_command", Arguments: `{"command":"rm -rf build"}`}
	srv.Enqueue(fakeai.ToolCalls(call), fakeai.Text("ok"))
	runID, _ := app.SendMessage(s.ID, "clean")
	app.rec.waitFor(t, "approval_requested", func(ev map[string]any) bool { return ev["type"] == "approval_requested" })
	rule, _ := app.SuggestRule(s.ID, "r1")
	rule.Effect = store.EffectAllow // the page cannot turn a denial into an allow rule
	if err := app.Decide(s.ID, "r1", desktop.DecisionInput{Approved: false, Always: &rule}); err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	rules, _ := app.ListRules()
	if len(rules) != 1 || rules[0].Effect != store.EffectDeny || rules[0].Pattern != "rm -rf build" {
		t.Fatalf("rules %+v", rules)
	}
	// The denial's row carries the rule as a rule; the model is told it holds from now on.
	first, _ := app.OpenSession(s.ID)
	for _, r := range first.Rows {
		switch r.Kind {
		case store.KindApproval:
			if a := payload[store.ApprovalPayload](t, r.Chunk); a.Reason != "" || a.Rule != "deny run_shell_command rm -rf build in this session" {
				t.Errorf("the denial that saved the rule: reason %q, rule %q", a.Reason, a.Rule)
			}
		case store.KindToolResult:
			if p := payload[store.ToolResultPayload](t, r.Chunk); p.Content != "denied by person (from now on: deny run_shell_command rm -rf build in this session)" {
				t.Errorf("the model was told %q", p.Content)
			}
		}
	}
	call.ID = "r2"
	srv.Enqueue(fakeai.ToolCalls(call), fakeai.Text("ok"))
	runID, _ = app.SendMessage(s.ID, "again")
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("%v", end)
	}
	view, _ := app.OpenSession(s.ID)
	denied := false
	for _, r := range view.Rows {
		if r.Kind == store.KindApproval {
			a := payload[store.ApprovalPayload](t, r.Chunk)
			denied = denied || (a.CallID == "r2" && a.Decision == "denied" && a.By == "rule:"+rules[0].ID)
		}
	}
	if !denied {
		t.Fatal("the second call was not denied by the saved rule")
	}
	// Edited in Settings, where no session is open: the rule keeps its scope.
	edited, err := app.UpdateRule(rules[0].ID, desktop.RuleInput{Tool: "run_shell_command", Pattern: "rm *", Effect: store.EffectAsk})
	if err != nil || edited.Effect != store.EffectAsk {
		t.Fatal(err)
	}
	if rules, _ := app.ListRules(); len(rules) != 1 || rules[0].Pattern != "rm *" || rules[0].Effect != store.EffectAsk || rules[0].ScopeID != s.ID {
		t.Fatalf("after edit %+v", rules)
	}
}
