package approvals_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/approvals"
	"github.com/loopdesk/loopdesk/backend/approvals/approvalstest"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

var start = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func record(t *testing.T) (*store.DB, string, string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	a, b, err := approvalstest.Record(ctx, path, start)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, a, b
}

func TestReportCountsWhoDecidedEachCall(t *testing.T) {
	db, _, _ := record(t)
	r, err := approvals.Build(context.Background(), db, approvals.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Asked != approvalstest.ExpectedAsked {
		t.Errorf("asked = %d, want %d", r.Asked, approvalstest.ExpectedAsked)
	}
	if want := map[string]int{"R1": 1}; !reflect.DeepEqual(r.AllowedByRule, want) {
		t.Errorf("allowed_by_rule = %v, want %v", r.AllowedByRule, want)
	}
	if r.AllowedByMode != 2 || r.AllowedByHook != 1 || r.AllowedBySkill != 1 || r.Sandboxed != 2 {
		t.Errorf("mode %d hook %d skill %d sandboxed %d, want 2 1 1 2", r.AllowedByMode, r.AllowedByHook, r.AllowedBySkill, r.Sandboxed)
	}
	if want := (approvals.Denied{Person: 2, Rule: 1, Hook: 1}); r.Denied != want {
		t.Errorf("denied = %+v, want %+v", r.Denied, want)
	}
	if want := (approvals.Percentiles{P50: approvalstest.ExpectedP50, P90: approvalstest.ExpectedP90}); r.AnswerMS != want {
		t.Errorf("answer_ms = %+v, want %+v", r.AnswerMS, want)
	}
}

// The person approved "go test ./store -run TestA" and "... TestB" and denied
// "go test ./... -exec rm": "go test *" would have spared the most prompts, but it allows the
// denied call, so the narrower prefix is offered. Approved writes outside the folder and
// approved network commands are never covered.
func TestSuggestionsNeverAllowWhatThePersonDenied(t *testing.T) {
	db, a, b := record(t)
	r, err := approvals.Build(context.Background(), db, approvals.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		tool, pattern string
		scope         store.Scope
		removed       int
		sessions      []string
	}
	var list []got
	for _, s := range r.Suggestions {
		g := got{s.Rule.Tool, s.Rule.Pattern, s.Rule.Scope, s.PromptsRemoved, nil}
		for _, c := range s.WouldAllow {
			g.sessions = append(g.sessions, c.SessionID)
		}
		list = append(list, g)
	}
	want := []got{
		{"run_shell_command", "go test ./store -run *", store.ScopeSession, 2, []string{a, a}},
		{"write_file", "docs/*.md", store.ScopeSession, 2, []string{a, a}},
		{"mcp__github__create_issue", "", store.ScopeWorkspace, 2, []string{a, b}},
	}
	if !reflect.DeepEqual(list, want) {
		t.Fatalf("suggestions:\n got %+v\nwant %+v", list, want)
	}
	// The real matcher agrees: the naive rule allows the denied call, the suggested one not.
	denied := tools.Call{ID: "a3", Name: "run_shell_command", Arguments: `{"command":"go test ./... -exec rm"}`}
	naive := tools.Rule{ID: "n", Tool: "run_shell_command", Pattern: "go test *", Effect: store.EffectAllow}
	offered := tools.Rule{ID: "s", Tool: "run_shell_command", Pattern: r.Suggestions[0].Rule.Pattern, Effect: store.EffectAllow}
	if !naive.Allows(denied, approvalstest.Workspace) || offered.Allows(denied, approvalstest.Workspace) {
		t.Errorf("naive allows the denied call: %v (want true); offered: %v (want false)",
			naive.Allows(denied, approvalstest.Workspace), offered.Allows(denied, approvalstest.Workspace))
	}
}

func TestReportFiltersBySessionAndTime(t *testing.T) {
	db, _, b := record(t)
	ctx := context.Background()
	r, err := approvals.Build(ctx, db, approvals.Filter{SessionID: b})
	if err != nil {
		t.Fatal(err)
	}
	if r.Asked != 4 || r.Denied.Person != 0 || len(r.Suggestions) != 0 {
		t.Errorf("session B: asked %d, denied by person %d, %d suggestions; want 4, 0, 0", r.Asked, r.Denied.Person, len(r.Suggestions))
	}
	r, err = approvals.Build(ctx, db, approvals.Filter{Since: start.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Asked != 0 || len(r.AllowedByRule) != 0 {
		t.Errorf("an hour later: asked %d, by rule %v; want nothing", r.Asked, r.AllowedByRule)
	}
	if _, err := approvals.Build(ctx, db, approvals.Filter{SessionID: "nope"}); err == nil {
		t.Error("an unknown session gave no error")
	}
}

func TestAcceptSavesTheRuleAsAlwaysAllowWould(t *testing.T) {
	db, a, _ := record(t)
	ctx := context.Background()
	r, err := approvals.Build(ctx, db, approvals.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Suggestions {
		if _, err := approvals.Accept(ctx, db, s); err != nil {
			t.Fatal(err)
		}
	}
	rules, err := db.ListRules(ctx, a, approvalstest.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 3 || rules[2].Scope != store.ScopeWorkspace || rules[2].ScopeID != approvalstest.Workspace || rules[0].ScopeID != a {
		t.Fatalf("rules after accepting = %+v", rules)
	}
	again, err := approvals.Build(ctx, db, approvals.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Asked != r.Asked || len(again.Suggestions) != 0 {
		t.Errorf("after accepting every suggestion: asked %d (was %d), %d suggestions still offered", again.Asked, r.Asked, len(again.Suggestions))
	}
	if _, err := approvals.Accept(ctx, db, approvals.Suggestion{Rule: approvals.SuggestedRule{Tool: "x", Scope: "session"}}); err == nil {
		t.Error("a suggestion naming no call was accepted")
	}
}

// Two calls asked together are answered one after the other: each one's time to answer runs
// from when both started waiting (the approval row's requested_at), not from the answer
// before it.
func TestTimeToAnswerRunsFromWhenTheCallStartedWaiting(t *testing.T) {
	ctx := context.Background()
	now := start
	db, err := store.OpenWith(ctx, filepath.Join(t.TempDir(), "loopdesk.db"), store.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := db.CreateSession(ctx, store.NewSession{Title: "two at once", Workspace: approvalstest.Workspace, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	appendAt := func(at time.Time, kind store.Kind, p any) {
		t.Helper()
		now = at
		if _, err := db.Append(ctx, s.ID, "run1", store.NewChunk{Kind: kind, Payload: p}); err != nil {
			t.Fatal(err)
		}
	}
	asked := start.Add(time.Second)
	appendAt(asked, store.KindAssistant, store.AssistantPayload{ToolCalls: []store.ToolCall{
		{ID: "c1", Name: "write_file", Arguments: `{"path":"a.md","content":"x"}`},
		{ID: "c2", Name: "write_file", Arguments: `{"path":"b.md","content":"x"}`}}})
	for _, a := range []struct {
		id    string
		after time.Duration
	}{{"c1", 2 * time.Second}, {"c2", 5 * time.Second}} {
		appendAt(asked.Add(a.after), store.KindApproval, store.ApprovalPayload{CallID: a.id, Tool: "write_file",
			Decision: store.DecisionApproved, By: tools.ByPerson, RequestedAt: asked})
	}
	r, err := approvals.Build(ctx, db, approvals.Filter{SessionID: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	if r.Asked != 2 || r.AnswerMS.P90 != 5000 || r.AnswerMS.P50 < 2000 || r.AnswerMS.P50 > 3500 {
		t.Errorf("asked %d, answer_ms %+v; want 2 answered after 2,000 and 5,000 ms", r.Asked, r.AnswerMS)
	}
}
