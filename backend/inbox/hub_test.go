package inbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// env is a window's inbox on a real database, with sessions whose calls wait in its Approver.
type env struct {
	t    *testing.T
	ctx  context.Context
	path string
	db   *store.DB
	ap   *tools.Approver
	hub  *inbox.Hub
	ws   string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir := t.TempDir()
	path := filepath.Join(dir, "loopdesk.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	ap := tools.NewApprover(stack.Rules{DB: db})
	hub := inbox.NewHub(&inbox.Local{DB: db, Approver: ap, Workspaces: tools.NewManager(),
		Origin: inbox.Process{Kind: inbox.OriginWindow, PID: os.Getpid()}})
	t.Cleanup(hub.Close)
	return &env{t: t, ctx: ctx, path: path, db: db, ap: ap, hub: hub, ws: ws}
}

func (e *env) session(title, workspace string, parent *store.Session) store.Session {
	e.t.Helper()
	n := store.NewSession{Title: title, Workspace: workspace, Model: "m1", Provider: "p1"}
	if parent != nil {
		n.ParentID, n.ParentCallID = parent.ID, "task_1"
	}
	s, err := e.db.CreateSession(e.ctx, n)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// ask makes call wait in s (mode ask) and returns where its decision arrives.
func (e *env) ask(s store.Session, call tools.Call) <-chan tools.Decision {
	e.t.Helper()
	out := make(chan tools.Decision, 1)
	started := make(chan struct{})
	go func() {
		d, err := e.ap.Request(e.ctx, tools.Request{SessionID: s.ID, Workspace: s.Workspace, Mode: tools.ModeAsk, Call: call,
			OnPending: func(tools.Pending) { close(started) }})
		if err != nil {
			d = tools.Decision{Reason: "error: " + err.Error()}
		}
		out <- d
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		e.t.Fatalf("call %s never waited", call.ID)
	}
	return out
}

func decision(t *testing.T, ch <-chan tools.Decision) tools.Decision {
	t.Helper()
	select {
	case d := <-ch:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("no decision")
	}
	return tools.Decision{}
}

func shell(id, cmd string) tools.Call {
	return tools.Call{ID: id, Name: "run_shell_command", Arguments: `{"command":"` + cmd + `"}`}
}

func TestInboxListsEveryWaitingCallOldestFirstWithChildren(t *testing.T) {
	e := newEnv(t)
	parent := e.session("Refactor the parser", e.ws, nil)
	child := e.session("Write the tests", e.ws, &parent)
	other := e.session("Docs", e.ws, nil)
	e.ask(other, shell("c1", "make docs"))
	e.ask(child, tools.Call{ID: "c2", Name: "write_file", Arguments: `{"path":"a_test.go","content":"package a\n"}`})
	e.ask(parent, shell("c3", "go test ./..."))

	v, err := e.hub.View(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range v.Approvals {
		ids = append(ids, a.CallID)
	}
	if strings.Join(ids, ",") != "c1,c2,c3" {
		t.Fatalf("approvals %v, want oldest first c1,c2,c3", ids)
	}
	c := v.Approvals[1]
	switch {
	case c.Kind != inbox.KindApproval || c.SessionID != child.ID || c.SessionTitle != "Write the tests":
		t.Errorf("child entry %+v", c.Item)
	case c.ParentSessionID == nil || *c.ParentSessionID != parent.ID || c.ChildDescription != "Write the tests":
		t.Errorf("child entry's parent %v, description %q", c.ParentSessionID, c.ChildDescription)
	case c.Workspace != e.ws || c.Provider != "p1" || c.Model != "m1" || c.Origin.Kind != inbox.OriginWindow:
		t.Errorf("child entry's folder, provider, model, origin: %+v", c.Item)
	case !strings.Contains(c.Diff, "+package a") || !strings.Contains(c.Diff, "a_test.go"):
		t.Errorf("a write_file call shows its diff, got %q", c.Diff)
	case string(c.Arguments) != `{"path":"a_test.go","content":"package a\n"}`:
		t.Errorf("arguments %s", c.Arguments)
	}
	if top := v.Approvals[2]; top.ParentSessionID != nil || top.Diff != "" {
		t.Errorf("a top-level session has no parent and a shell call no diff: %+v", top)
	}
	if v.Approvals[0].WaitingMS < v.Approvals[2].WaitingMS {
		t.Errorf("the oldest call waited less: %d < %d", v.Approvals[0].WaitingMS, v.Approvals[2].WaitingMS)
	}
}

func TestInboxAnswerFirstWinsAsPersonInbox(t *testing.T) {
	e := newEnv(t)
	s := e.session("One", e.ws, nil)
	d := e.ask(s, shell("c1", "ls"))
	changed := make(chan struct{}, 8)
	defer e.hub.Watch(func() { changed <- struct{}{} })()

	if err := e.hub.Answer(e.ctx, inbox.Answer{SessionID: s.ID, CallID: "c1", Approve: true, Arguments: `{"command":"ls -la"}`}); err != nil {
		t.Fatal(err)
	}
	got := decision(t, d)
	if !got.Approved || got.By != inbox.ByInbox || got.Arguments != `{"command":"ls -la"}` {
		t.Fatalf("decision %+v, want approved by person:inbox with the edited arguments", got)
	}
	if err := e.hub.Answer(e.ctx, inbox.Answer{CallID: "c1", Approve: false}); !errors.Is(err, inbox.ErrNotPending) {
		t.Fatalf("a second answer: %v, want not pending", err)
	}
	select {
	case <-changed:
	default:
		t.Error("answering did not tell the watchers")
	}
	e.ask(s, shell("c2", "ls"))
	if err := e.hub.Answer(e.ctx, inbox.Answer{CallID: "c2", Approve: true, Arguments: `[1]`}); !errors.Is(err, inbox.ErrInvalid) {
		t.Fatalf("edited arguments that are not an object: %v", err)
	}
}

func TestInboxAlwaysAllowFolderApprovesTheOthersItMatches(t *testing.T) {
	e := newEnv(t)
	elsewhere := filepath.Join(t.TempDir(), "other")
	if err := os.Mkdir(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	a, b, c := e.session("A", e.ws, nil), e.session("B", e.ws, nil), e.session("C", elsewhere, nil)
	da := e.ask(a, shell("ca", "npm test"))
	db := e.ask(b, shell("cb", "npm test"))
	dc := e.ask(c, shell("cc", "npm test"))
	e.ask(b, shell("cb2", "rm -rf build"))

	p, err := e.hub.AlwaysPreview(e.ctx, a.ID, "ca", inbox.ScopeFolder)
	if err != nil {
		t.Fatal(err)
	}
	if p.Rule != "allow run_shell_command npm test in this folder" || p.Scope != inbox.ScopeFolder {
		t.Errorf("rule %q scope %q", p.Rule, p.Scope)
	}
	if len(p.Others) != 1 || p.Others[0].CallID != "cb" {
		t.Fatalf("others %+v, want only B's npm test (C is in another folder, rm is another command)", p.Others)
	}
	if pe, _ := e.hub.AlwaysPreview(e.ctx, a.ID, "ca", inbox.ScopeEverywhere); len(pe.Others) != 2 {
		t.Errorf("everywhere would approve %d others, want 2 (B and C)", len(pe.Others))
	}
	if _, err := e.hub.AlwaysPreview(e.ctx, a.ID, "ca", "galaxy"); !errors.Is(err, inbox.ErrInvalid) {
		t.Errorf("an unknown scope: %v", err)
	}
	n, err := e.hub.AlwaysAllow(e.ctx, a.ID, "ca", inbox.ScopeFolder)
	if err != nil || n != 2 {
		t.Fatalf("AlwaysAllow = %d, %v; want 2", n, err)
	}
	for _, ch := range []<-chan tools.Decision{da, db} {
		if d := decision(t, ch); !d.Approved || d.By != inbox.ByInbox {
			t.Errorf("decision %+v", d)
		}
	}
	select {
	case d := <-dc:
		t.Fatalf("the call in another folder was answered: %+v", d)
	default:
	}
	rules, _ := e.db.ListRules(e.ctx, "", e.ws)
	if len(rules) != 1 || rules[0].Pattern != "npm test" || rules[0].Scope != store.ScopeWorkspace {
		t.Fatalf("rules %+v", rules)
	}
	left := e.hub.Approvals(e.ctx)
	if len(left) != 2 {
		t.Fatalf("%d calls left, want C's and B's rm", len(left))
	}
}

func TestInboxEndedRunsUntilDismissedAcrossRestarts(t *testing.T) {
	e := newEnv(t)
	s := e.session("Build", e.ws, nil)
	child := e.session("Sub", e.ws, &s)
	finish := func(sess store.Session, status store.RunStatus, why string) string {
		r, err := e.db.StartRun(e.ctx, store.NewRun{SessionID: sess.ID, Model: "m1"})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.db.FinishRun(e.ctx, r.ID, store.RunResult{Status: status, Error: why}); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	r1 := finish(s, "completed", "")
	r2 := finish(child, "cost_budget", "the run's cost budget of $0.10 is spent")
	if _, err := e.db.StartRun(e.ctx, store.NewRun{SessionID: s.ID, Model: "m1"}); err != nil {
		t.Fatal(err) // a run still going: not listed
	}
	v, err := e.hub.View(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Ended) != 2 || v.Ended[0].RunID != r2 || v.Ended[1].RunID != r1 {
		t.Fatalf("ended %+v, want newest first r2, r1", v.Ended)
	}
	if x := v.Ended[0]; x.Status != "cost_budget" || !strings.Contains(x.Reason, "cost budget") || x.ParentSessionID == nil ||
		*x.ParentSessionID != s.ID || x.Kind != inbox.KindEnded || string(x.Arguments) != "{}" {
		t.Errorf("ended entry %+v", x)
	}
	if err := e.hub.Dismiss(e.ctx, r2); err != nil {
		t.Fatal(err)
	}
	if err := e.hub.Dismiss(e.ctx, "no-such-run"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("dismissing an unknown run: %v", err)
	}
	e.db.Close()
	db, err := store.Open(e.ctx, e.path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ended, err := inbox.EndedRuns(e.ctx, db)
	if err != nil || len(ended) != 1 || ended[0].RunID != r1 {
		t.Fatalf("after reopening: %+v, %v; want only r1 (r2 dismissed)", ended, err)
	}
}
