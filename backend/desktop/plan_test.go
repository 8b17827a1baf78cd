package desktop_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The model keeps its plan with update_plan (no approval needed, even in ask mode); the
// pinned plan is the latest one, survives a restart and a fork; the person's edit becomes the
// pinned plan and reaches the model, framed as Loopdesk's note, at its next request.
func TestPlanPinnedEditedAndRestored(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, err := app.NewSession("")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := app.Plan(s.ID); err != nil || p != nil {
		t.Fatalf("a new session has no plan: %+v %v", p, err)
	}
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "p1", Name: "update_plan",
		Arguments: `{"explanation":"start","plan":[{"step":"read the code","status":"in_progress"},{"step":"fix the bug","status":"pending"}]}`}),
		fakeai.ToolCalls(fakeai.Call{ID: "p2", Name: "update_plan",
			Arguments: `{"plan":[{"step":"read the code","status":"completed"},{"step":"fix the bug","status":"in_progress"}]}`}),
		fakeai.Text("working on it"))
	runID, err := app.SendMessage(s.ID, "fix it")
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("run %v", end)
	}
	p, err := app.Plan(s.ID)
	if err != nil || p == nil || p.By != "model" || len(p.Plan.Plan) != 2 || p.Plan.Plan[1].Status != store.StepInProgress {
		t.Fatalf("pinned plan after the run: %+v %v", p, err)
	}
	edited := store.Plan{Plan: []store.PlanStep{{Step: "read the code", Status: "completed"},
		{Step: "fix the bug with a test first", Status: "in_progress"}}}
	if _, err := app.EditPlan(s.ID, store.Plan{Plan: []store.PlanStep{{Step: "x", Status: "done"}}}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("an invalid status should be refused: %v", err)
	}
	if got, err := app.EditPlan(s.ID, edited); err != nil || got.By != "person" {
		t.Fatalf("edit: %+v %v", got, err)
	}
	if p, _ := app.Plan(s.ID); p == nil || p.Plan.Plan[1].Step != "fix the bug with a test first" || p.By != "person" {
		t.Fatalf("pinned plan after the edit: %+v", p)
	}
	srv.Enqueue(fakeai.Text("ok, test first"))
	runID, err = app.SendMessage(s.ID, "go on")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	reqs := srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "loopdesk note") || !strings.Contains(last, "fix the bug with a test first") {
		t.Fatalf("the edit should reach the model as a note: %s", last)
	}
	if n := strings.Count(last, "The person edited your plan"); n != 1 {
		t.Fatalf("the note reached the model %d times", n)
	}
	// A fork from the latest row keeps the plan; so does a restart (the rows are the plan).
	view, _ := app.OpenSession(s.ID)
	fork, err := app.ForkSession(s.ID, view.Rows[len(view.Rows)-1].Seq)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := app.Plan(fork.ID); p == nil || p.Plan.Plan[1].Step != "fix the bug with a test first" {
		t.Fatalf("the fork's plan: %+v", p)
	}
}
