package desktop_test

import (
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// A page that opens (or reloads) while a child session works reads from OpenSession and
// Chat.Live that the parent's task call is running, since when, and that nothing of the parent waits for a
// person: the approval is the child's. Once the call is done it is no longer listed.
func TestLiveListsTheRunningTaskCall(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv.EnqueueFor("[parent]", fakeai.ToolCalls(fakeai.Call{ID: "t1", Name: "task",
		Arguments: `{"description":"run the tests","prompt":"[child] run make test"}`}), fakeai.Text("parent done"))
	srv.EnqueueFor("[child]", fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"make test"}`}),
		fakeai.Text("denied, so I stopped"))
	before := time.Now()
	runID, err := app.SendMessage(s.ID, "[parent] delegate")
	if err != nil {
		t.Fatal(err)
	}
	ev := app.rec.waitFor(t, "the child's approval_requested", func(ev map[string]any) bool {
		return ev["type"] == "approval_requested" && ev["call_id"] == "c1"
	})
	child, _ := ev["session_id"].(string)
	live, err := app.Live(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if live.RunningRunID != runID || len(live.Pending) != 0 || len(live.Running) != 1 ||
		live.Running[0].CallID != "t1" || live.Running[0].Name != "task" || live.Running[0].StartedAt.Before(before.Add(-time.Second)) {
		t.Fatalf("the parent's live view while its child waits: %+v", live)
	}
	if view, err := app.OpenSession(s.ID); err != nil || len(view.Running) != 1 || view.Running[0] != live.Running[0] {
		t.Fatalf("OpenSession lists %+v (%v), want the task call as Live does", view.Running, err)
	}
	childLive, err := app.Live(child)
	if err != nil || len(childLive.Pending) != 1 || len(childLive.Running) != 0 {
		t.Fatalf("the child's live view: %+v %v (its call waits for the person, it does not run)", childLive, err)
	}
	if err := app.Decide(child, "c1", desktop.DecisionInput{Approved: false, Reason: "not now"}); err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("parent %v", end)
	}
	if live, err := app.Live(s.ID); err != nil || len(live.Running) != 0 || live.RunningRunID != "" {
		t.Fatalf("after the run: %+v %v", live, err)
	}
}
