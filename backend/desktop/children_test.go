package desktop_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/notify"
	"github.com/loopdesk/loopdesk/backend/testbus"
)

// A child session's approval reaches the window as the child's event carrying the parent's
// call and session, is decided in the child's session, and its notification names the child
// and its parent.
func TestChildApprovalInTheWindowAndItsNotification(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	addr := testbus.Start(t)
	daemon := startNotifServer(t, addr)
	n, err := notify.Dial(addr, app.svc.NotificationEvent)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	app.svc.StartNotifications(n, func() {})
	app.svc.Window.SetFocused(false)
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv.EnqueueFor("[parent]", fakeai.ToolCalls(fakeai.Call{ID: "t1", Name: "task",
		Arguments: `{"description":"run the tests","prompt":"[child] run make test"}`}), fakeai.Text("parent done"))
	srv.EnqueueFor("[child]", fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"make test"}`}),
		fakeai.Text("denied, so I stopped"))
	runID, err := app.SendMessage(s.ID, "[parent] delegate")
	if err != nil {
		t.Fatal(err)
	}
	ev := app.rec.waitFor(t, "the child's approval_requested", func(ev map[string]any) bool {
		return ev["type"] == "approval_requested" && ev["call_id"] == "c1"
	})
	child, _ := ev["session_id"].(string)
	if ev["parent_call_id"] != "t1" || ev["parent_session_id"] != s.ID || child == "" || child == s.ID {
		t.Fatalf("the child's approval event: %v", ev)
	}
	waitHandled(t, app.svc, 1)
	if err := app.Decide(child, "c1", desktop.DecisionInput{Approved: false, Reason: "not now"}); err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("parent %v", end)
	}
	shown, _ := daemon.recorded()
	if len(shown) == 0 || !strings.Contains(shown[0].Body, "Child “run the tests” of [parent] delegate") || !strings.Contains(shown[0].Body, "make test") {
		t.Fatalf("the child's approval notification: %+v", shown)
	}
	tot, err := app.Totals(s.ID)
	if err != nil || len(tot.Children) != 1 || tot.Children[0].SessionID != child || tot.Runs != 2 {
		t.Fatalf("the parent's totals should count its child and list it: %+v %v", tot, err)
	}
	list, _ := app.ListSessions()
	var found bool
	for _, x := range list {
		// Under the row that started it: the parent's row 2 (the assistant turn with t1).
		found = found || (x.ID == child && x.ParentID == s.ID && x.ParentCallID == "t1" && x.ForkSeq == 2)
	}
	if !found {
		t.Fatalf("the child is not listed under its parent's call row: %+v", list)
	}
	// A child is no version of its parent: no version switcher on either.
	for _, id := range []string{s.ID, child} {
		if bs, err := app.Branches(id); err != nil || len(bs) != 0 {
			t.Fatalf("branches of %s = %+v, %v; a task's child is no fork", id, bs, err)
		}
	}
}

// Settings → Agents lists the session folder's definitions, an invalid one with its path
// and reason, and the built-in explore agent.
func TestAgentDefinitionsForTheSession(t *testing.T) {
	app := newTestApp(t, "")
	ws := t.TempDir()
	dir := filepath.Join(ws, ".claude", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "ok.md"), []byte("---\nname: ok\ndescription: fine\n---\nbody\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.md"), []byte("---\nname: bad\n---\n"), 0o644)
	s, err := app.NewSession(ws)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := app.AgentDefinitions(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range defs {
		got[d.Name] = d.Error
	}
	if got["ok"] != "" || got["bad"] != "description is required" || got["explore"] != "" {
		t.Fatalf("definitions %+v", defs)
	}
}

// A page opened while a child waits for the person, or after it ended, rebuilds the task card
// from the journal: the child by its call, running and waiting on its call, then its status
// and what it used.
func TestChildrenRebuildTheTaskCardFromTheJournal(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv.EnqueueFor("[parent]", fakeai.ToolCalls(fakeai.Call{ID: "t1", Name: "task",
		Arguments: `{"description":"build","prompt":"[child] build it"}`}), fakeai.Text("parent done"))
	srv.EnqueueFor("[child]", fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"make"}`}).WithUsage(300, 30, 0),
		fakeai.Text("built").WithUsage(400, 40, 0))
	runID, err := app.SendMessage(s.ID, "[parent] delegate")
	if err != nil {
		t.Fatal(err)
	}
	ev := app.rec.waitFor(t, "the child's approval_requested", func(ev map[string]any) bool {
		return ev["type"] == "approval_requested" && ev["call_id"] == "c1"
	})
	child, _ := ev["session_id"].(string)
	kids, err := app.Children(s.ID)
	if err != nil || len(kids) != 1 {
		t.Fatalf("children while it waits: %+v %v", kids, err)
	}
	k := kids[0]
	if k.SessionID != child || k.ParentCallID != "t1" || k.Status != "running" || k.Step != "waiting for your approval of run_shell_command" ||
		len(k.Pending) != 1 || k.Pending[0].CallID != "c1" || k.ToolCalls != 1 || k.Tokens != 330 || k.Seq == 0 {
		t.Fatalf("the child while it waits: %+v", k)
	}
	if err := app.Decide(child, "c1", desktop.DecisionInput{Approved: true}); err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	kids, err = app.Children(s.ID)
	if err != nil || len(kids) != 1 {
		t.Fatalf("children after: %+v %v", kids, err)
	}
	if k := kids[0]; k.Status != "completed" || k.Step != "completed" || len(k.Pending) != 0 || k.ToolCalls != 1 || k.Tokens != 770 {
		t.Fatalf("the child after it ended: %+v", k)
	}
	// Reopened, the parent's meters still count its child's turns and calls, as they did live.
	v, err := app.OpenSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, m := range v.Meters {
		got[string(m.Key)] = m.Value
	}
	if got["turns"] != 4 || got["tool_calls"] != 2 || got["tokens"] < 770 {
		t.Fatalf("the reopened parent's meters %v: want 4 turns (2 + the child's 2), 2 tool calls, the child's tokens", got)
	}
	if kids, err := app.Children(child); err != nil || len(kids) != 0 {
		t.Fatalf("a child without children: %+v %v", kids, err)
	}
}
