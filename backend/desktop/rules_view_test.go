package desktop_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A rule reads as the rule itself, on the call it decided and in Settings, never as a hex
// id; Settings names the session, and lists a rule that forks copied once.
func TestRulesReadAsRulesAndForkCopiesAreOneRow(t *testing.T) {
	srv := startFake(t)
	call := fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"notes.md","content":"a"}`}
	srv.Enqueue(fakeai.ToolCalls(call), fakeai.Text("wrote"))
	app := newTestApp(t, srv.URL())
	s, _ := app.NewSession(t.TempDir())
	if err := app.RenameSession(s.ID, "Write the notes"); err != nil {
		t.Fatal(err)
	}
	runID, err := app.SendMessage(s.ID, "write notes")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.waitFor(t, "approval_requested", func(ev map[string]any) bool { return ev["type"] == "approval_requested" })
	rule := desktop.RuleInput{Tool: "write_file", Pattern: "*.md", Scope: store.ScopeSession}
	if err := app.Decide(s.ID, "w1", desktop.DecisionInput{Approved: true, Always: &rule}); err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)

	call.ID = "w2"
	srv.Enqueue(fakeai.ToolCalls(call), fakeai.Text("again"))
	runID, _ = app.SendMessage(s.ID, "again")
	app.rec.runFinished(t, runID)
	view, _ := app.OpenSession(s.ID)
	reasons := map[string]store.ApprovalPayload{}
	for _, r := range view.Rows {
		if r.Kind == store.KindApproval {
			var a store.ApprovalPayload
			_ = json.Unmarshal(r.Payload, &a)
			reasons[a.CallID] = a
		}
	}
	// The answer that saved the rule carries it as a rule, apart from the person's words
	// (none were typed): the card says "allowed from now on", never quotes it as theirs.
	if got := reasons["w1"]; got.By != "person" || got.Reason != "" || got.Rule != "allow write_file *.md in this session" {
		t.Errorf("the approval that saved the rule: by %s, reason %q, rule %q", got.By, got.Reason, got.Rule)
	}
	if got := reasons["w2"]; !strings.HasPrefix(got.By, "rule:") || got.Reason != "allow write_file *.md in this session" {
		t.Errorf("the call the rule decided says %q (by %s)", got.Reason, got.By)
	}

	for _, seq := range []int64{2, 4} {
		if _, err := app.ForkSession(s.ID, seq); err != nil {
			t.Fatal(err)
		}
	}
	other, _ := app.NewSession(t.TempDir())
	if _, err := app.AddRule(desktop.RuleInput{Tool: "write_file", Pattern: "*.md", Effect: store.EffectAllow, Scope: store.ScopeSession, SessionID: other.ID}); err != nil {
		t.Fatal(err)
	}
	rules, err := app.ListRules()
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 {
		t.Fatalf("rules %+v; want the session's rule once (with its forks' copies) and the other session's", rules)
	}
	if r := rules[0]; r.Text != "allow write_file *.md in this session" || r.Where != "session “Write the notes” and 2 of its forks" || len(r.Copies) != 3 {
		t.Fatalf("first rule %+v", r)
	}
	if r := rules[1]; r.Where != "session “New session”" || len(r.Copies) != 1 {
		t.Fatalf("second rule %+v", r)
	}

	// Deleting the row deletes the rule in the session and in its forks.
	if err := app.DeleteRule(rules[0].ID); err != nil {
		t.Fatal(err)
	}
	if rules, _ := app.ListRules(); len(rules) != 1 || rules[0].ID != rules[0].Copies[0] || rules[0].ScopeID != other.ID {
		t.Fatalf("after deleting: %+v", rules)
	}
}
