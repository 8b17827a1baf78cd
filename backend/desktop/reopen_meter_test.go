package desktop_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A session opened again shows the Time meter of its last run as the run counted it: a run
// that waited 40 minutes for the person under a 30-minute limit, and worked 2 minutes itself,
// reads 2m of 30m, not 42m in red. The run's row is written on an injected clock.
func TestReopenedTimeMeterShowsTheRunsOwnTime(t *testing.T) {
	app := newTestApp(t, "")
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	db, err := store.OpenWith(ctx, app.dbPath, store.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.CreateSession(ctx, store.NewSession{Title: "waited for lunch", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	limits, _ := json.Marshal(core.Limits{Timeout: 30 * time.Minute})
	run, _, err := db.StartRunWith(ctx, store.NewRun{SessionID: s.ID, Model: "fake-model", Limits: limits},
		store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: "rewrite a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(42 * time.Minute) // 40 of them waiting for the person's approval
	mu.Unlock()
	if _, _, err := db.FinishRun(ctx, run.ID, store.RunResult{Status: "completed", Output: "done", Worked: 2 * time.Minute}); err != nil {
		t.Fatal(err)
	}

	view, err := app.OpenSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var clockMeter *core.Meter
	for i := range view.Meters {
		if view.Meters[i].Key == core.MeterTime {
			clockMeter = &view.Meters[i]
		}
	}
	if clockMeter == nil || clockMeter.Value != 120 || clockMeter.Limit != 1800 || clockMeter.Level != core.LevelOK {
		t.Fatalf("the reopened Time meter: %+v; want the run's own 2m of 30m, not 42m over the limit", clockMeter)
	}
}
