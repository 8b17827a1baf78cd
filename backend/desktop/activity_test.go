package desktop_test

import (
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// waitActivity waits for an activity:changed of the session that matches.
func (a *testApp) waitActivity(t *testing.T, sessionID, what string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	return a.rec.waitFor(t, "activity "+what, func(ev map[string]any) bool {
		return ev["_event"] == desktop.EventActivityChanged && ev["session_id"] == sessionID && match(ev)
	})
}

func activityOf(t *testing.T, app *testApp, sessionID string) desktop.Activity {
	t.Helper()
	list, err := app.SessionActivity()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range list {
		if a.SessionID == sessionID {
			return a
		}
	}
	t.Fatalf("SessionActivity has no entry for %s: %+v", sessionID, list)
	return desktop.Activity{}
}

// TestTheBoardFollowsARunStepByStep: a run's session is Working while the model answers,
// Needs you while its call waits, shows the command while it runs, and Done after; a run
// that fails puts its session under Failed; a session that never ran is Idle.
func TestTheBoardFollowsARunStepByStep(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	idle, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"echo   board"}`}),
		fakeai.Text("done"))
	runID, err := app.SendMessage(s.ID, "go")
	if err != nil {
		t.Fatal(err)
	}
	working := app.waitActivity(t, s.ID, "working", func(ev map[string]any) bool {
		return ev["state"] == "working" && ev["step"] == "Waiting for the model" && ev["run_id"] == runID && ev["started_at"] != nil
	})
	app.waitActivity(t, s.ID, "needs you", func(ev map[string]any) bool {
		return ev["state"] == "needs_you" && ev["step"] == "Waiting for approval" && ev["waiting"] == float64(1)
	})
	if a := activityOf(t, app, s.ID); a.State != desktop.ActivityNeedsYou || a.Waiting != 1 {
		t.Fatalf("SessionActivity while the call waits = %+v", a)
	}
	if a := activityOf(t, app, idle.ID); a.State != desktop.ActivityIdle || a.Step != "" {
		t.Fatalf("a session that never ran = %+v; want idle", a)
	}
	if err := app.Decide(s.ID, "c1", desktop.DecisionInput{Approved: true}); err != nil {
		t.Fatal(err)
	}
	app.waitActivity(t, s.ID, "running the command", func(ev map[string]any) bool {
		return ev["state"] == "working" && ev["step"] == "Running echo board"
	})
	app.rec.runFinished(t, runID)
	done := app.waitActivity(t, s.ID, "done", func(ev map[string]any) bool { return ev["state"] == "done" })
	if done["status"] != "completed" || done["step"] != "" || done["waiting"] != float64(0) {
		t.Fatalf("after the run: %v", done)
	}
	// The page keeps the highest version per session, so a step delivered late never
	// overwrites the end: every change carries a higher one than the changes before it.
	if wv, dv := working["version"].(float64), done["version"].(float64); !(wv > 0 && dv > wv) {
		t.Fatalf("versions: working %v, done %v; want 0 < working < done", wv, dv)
	}
	if a := activityOf(t, app, s.ID); float64(a.Version) != done["version"] {
		t.Fatalf("SessionActivity's version %d, the last change's %v", a.Version, done["version"])
	}

	srv.Enqueue(fakeai.HTTPError(400, `{"error":{"message":"bad request"}}`))
	failedRun, err := app.SendMessage(s.ID, "again")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, failedRun)
	app.waitActivity(t, s.ID, "failed", func(ev map[string]any) bool {
		return ev["state"] == "failed" && ev["status"] == "provider_error"
	})
	if a := activityOf(t, app, s.ID); a.State != desktop.ActivityFailed || a.RunID != failedRun {
		t.Fatalf("SessionActivity after a failed run = %+v", a)
	}
}

// TestTheBoardReadsTheLastStoredRun: a window opened on a database with finished runs puts
// each session where its last run left it.
func TestTheBoardReadsTheLastStoredRun(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(fakeai.Text("hello"))
	runID, err := app.SendMessage(s.ID, "hi")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	reopened := openTestApp(t, app.dbPath, t.TempDir())
	if a := activityOf(t, reopened, s.ID); a.State != desktop.ActivityDone || a.Status != "completed" || a.RunID != runID {
		t.Fatalf("after reopening: %+v; want done from the stored run", a)
	}
}
