package desktop_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// fakeShell is the window and the process as Wails would drive them: it records what the
// lifecycle asked for.
type fakeShell struct {
	mu      sync.Mutex
	visible bool
	quits   int
}

func (f *fakeShell) Hide() { f.mu.Lock(); f.visible = false; f.mu.Unlock() }
func (f *fakeShell) Show() { f.mu.Lock(); f.visible = true; f.mu.Unlock() }
func (f *fakeShell) Quit() { f.mu.Lock(); f.quits++; f.mu.Unlock() }

func (f *fakeShell) state() (visible bool, quits int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.visible, f.quits
}

// waitingRun starts a run in a new session of dir whose one shell call waits for approval;
// the fake model's next reply (after the answer) ends it.
func waitingRun(t *testing.T, app *testApp, srv *fakeai.Server, dir, callID string) (sessionID, runID string) {
	t.Helper()
	s, err := app.NewSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: callID, Name: "run_shell_command", Arguments: `{"command":"echo ` + callID + `"}`}))
	runID, err = app.SendMessage(s.ID, "run "+callID)
	if err != nil {
		t.Fatal(err)
	}
	app.rec.waitFor(t, "approval_requested "+callID, func(ev map[string]any) bool {
		return ev["type"] == "approval_requested" && ev["call_id"] == callID
	})
	return s.ID, runID
}

// shownWindow is the app on a fake model, with its window shown.
func shownWindow(t *testing.T) (*fakeai.Server, *testApp, *fakeShell) {
	t.Helper()
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	sh := &fakeShell{visible: true}
	app.svc.StartLifecycle(sh)
	return srv, app, sh
}

func until(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestClosingWithNoRunGoingQuitsAtOnce(t *testing.T) {
	_, app, _ := shownWindow(t)
	if app.svc.Lifecycle.RunsGoing() != 0 {
		t.Fatal("runs going in a fresh window")
	}
	if app.svc.BeforeClose() {
		t.Fatal("the close was held with no run going")
	}
	app.rec.mu.Lock()
	defer app.rec.mu.Unlock()
	for _, ev := range app.rec.events {
		if ev["_event"] == desktop.EventCloseRequested {
			t.Fatal("the page was asked about closing with no run going")
		}
	}
}

func TestKeptRunsHideTheWindowAndASecondLaunchShowsIt(t *testing.T) {
	srv, app, sh := shownWindow(t)
	in := desktop.NewInstance("")
	in.Started(app.rec.emit, app.svc.ShowWindow)
	dir := t.TempDir()
	a, runA := waitingRun(t, app, srv, dir, "a1")
	b, runB := waitingRun(t, app, srv, dir, "b1")

	until(t, "two runs going", func() bool { return app.svc.Lifecycle.RunsGoing() == 2 })
	if !app.svc.BeforeClose() {
		t.Fatal("the window closed with two runs going")
	}
	ask := app.rec.waitFor(t, "the close question", func(ev map[string]any) bool { return ev["_event"] == desktop.EventCloseRequested })
	if ask["runs"] != float64(2) {
		t.Fatalf("close question = %v; want 2 runs", ask)
	}

	app.svc.Lifecycle.KeepRunning()
	// Answered: any other page of the window puts the question away.
	app.rec.waitFor(t, "the question put away", func(ev map[string]any) bool {
		return ev["_event"] == desktop.EventCloseRequested && ev["runs"] == float64(0)
	})
	if v, q := sh.state(); v || q != 0 || !app.svc.Hidden() {
		t.Fatalf("after Keep: visible %v, quits %d, hidden %v; want hidden and not quitting", v, q, app.svc.Hidden())
	}
	// The runs go on without the window: one is answered and finishes, the process stays.
	srv.Enqueue(fakeai.Text("a done"))
	if err := app.Decide(a, "a1", desktop.DecisionInput{Approved: true}); err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runA); end["status"] != "completed" {
		t.Fatalf("run a ended %v", end["status"])
	}
	until(t, "one run going", func() bool { return app.svc.Lifecycle.RunsGoing() == 1 })
	time.Sleep(1500 * time.Millisecond) // longer than the grace: a run still goes, so no quit
	if _, q := sh.state(); q != 0 {
		t.Fatal("the hidden window quit while a run was still going")
	}

	// Launching Loopdesk again brings it back; it no longer quits by itself.
	in.SecondLaunch("", nil)
	if v, _ := sh.state(); !v || app.svc.Hidden() {
		t.Fatal("a second launch did not show the window")
	}
	srv.Enqueue(fakeai.Text("b done"))
	if err := app.Decide(b, "b1", desktop.DecisionInput{Approved: true}); err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runB)
	time.Sleep(1500 * time.Millisecond)
	if _, q := sh.state(); q != 0 {
		t.Fatal("a shown window quit when its last run ended")
	}
}

func TestAHiddenWindowQuitsWhenItsLastRunEndsUnlessSomethingWaits(t *testing.T) {
	srv, app, sh := shownWindow(t)
	var mu sync.Mutex
	elsewhere := true // a call of another process waits in the inbox
	app.svc.HoldOpen(func() bool { mu.Lock(); defer mu.Unlock(); return elsewhere })
	s, runID := waitingRun(t, app, srv, t.TempDir(), "c1")
	until(t, "the run going", func() bool { return app.svc.Lifecycle.RunsGoing() == 1 })
	app.svc.Lifecycle.KeepRunning()

	srv.Enqueue(fakeai.Text("done"))
	if err := app.Decide(s, "c1", desktop.DecisionInput{Approved: true}); err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	time.Sleep(1500 * time.Millisecond)
	if _, q := sh.state(); q != 0 {
		t.Fatal("the hidden window quit while something else waited for the person")
	}
	mu.Lock()
	elsewhere = false
	mu.Unlock()
	app.svc.CheckIdle()
	until(t, "the hidden window to quit", func() bool { _, q := sh.state(); return q == 1 })
	// Wails then asks before closing: the lifecycle lets it close.
	if app.svc.BeforeClose() {
		t.Fatal("the quit of an idle hidden window was held")
	}
}

func TestQuitStopsTheRunsAndTheirRowsSayStopped(t *testing.T) {
	srv, app, sh := shownWindow(t)
	s, runID := waitingRun(t, app, srv, t.TempDir(), "q1")
	until(t, "the run going", func() bool { return app.svc.Lifecycle.RunsGoing() == 1 })

	app.svc.Lifecycle.Quit() // Ctrl+Q: no question
	if _, q := sh.state(); q != 1 {
		t.Fatal("Quit did not quit")
	}
	if app.svc.BeforeClose() {
		t.Fatal("a quit with a run going was held")
	}
	app.svc.Shutdown() // OnShutdown: returns once the runs' rows are written
	// What the next start reads from the file.
	db, err := store.Open(context.Background(), app.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs, err := db.ListRuns(context.Background(), s)
	if err != nil || len(runs) != 1 || runs[0].ID != runID || runs[0].Status != "cancelled" {
		t.Fatalf("runs = %+v, %v; want the run stored as cancelled, as Stop ends it", runs, err)
	}
	rows, err := db.ChunksAfter(context.Background(), s, 0)
	if err != nil {
		t.Fatal(err)
	}
	var result store.ToolResultPayload
	for _, r := range rows {
		if r.Kind == store.KindToolResult {
			result = payload[store.ToolResultPayload](t, r)
		}
	}
	if result.CallID != "q1" || !result.IsError || !strings.HasPrefix(result.Content, "cancelled") {
		t.Fatalf("the waiting call's result = %+v; want it stored as stopped", result)
	}
}
