package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// A run's row and its first rows are one transaction: both or neither. CheckIdle answers what
// StartRun would, without writing.
func TestStartRunWithStoresTheRunWithItsRows(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	if err := db.CheckIdle(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("CheckIdle of an unknown session: %v", err)
	}
	if err := db.CheckIdle(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	// A row that breaks the pairing (a result without its call) refuses the whole transaction.
	if _, _, err := db.StartRunWith(ctx, store.NewRun{SessionID: s.ID}, result("c9", "x", "y")); !errors.Is(err, store.ErrUnpaired) {
		t.Fatalf("unpaired first row: %v", err)
	}
	if runs, _ := db.ListRuns(ctx, s.ID); len(runs) != 0 {
		t.Fatalf("a run row was left by a refused transaction: %+v", runs)
	}
	id := store.NewRunID()
	run, added, err := db.StartRunWith(ctx, store.NewRun{ID: id, SessionID: s.ID, Model: "m"}, user("go"))
	if err != nil || run.ID != id || len(added) != 1 || added[0].RunID != id || added[0].Seq != 1 {
		t.Fatalf("run %+v rows %+v %v", run, added, err)
	}
	if err := db.CheckIdle(ctx, s.ID); !errors.Is(err, store.ErrSessionBusy) {
		t.Fatalf("CheckIdle while the run is live: %v", err)
	}
	if _, _, err := db.StartRunWith(ctx, store.NewRun{SessionID: s.ID}, user("again")); !errors.Is(err, store.ErrSessionBusy) {
		t.Fatalf("a second run: %v", err)
	}
	if rows, _ := db.Chunks(ctx, s.ID); len(rows) != 1 {
		t.Fatalf("rows %+v", rows)
	}
}

// The last rows and the run's end are one transaction: a refused row leaves the run running
// and the rows out; a good one finishes the run with the rows counted.
func TestAppendAndFinishIsOneTransaction(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	run, _, err := db.StartRunWith(ctx, store.NewRun{SessionID: s.ID}, user("go"))
	if err != nil {
		t.Fatal(err)
	}
	done := store.RunResult{Status: store.RunStatus("completed"), Output: "ok"}
	if _, _, _, err := db.AppendAndFinish(ctx, s.ID, run.ID, done, result("c9", "x", "y")); !errors.Is(err, store.ErrUnpaired) {
		t.Fatalf("unpaired last row: %v", err)
	}
	if runs, _ := db.ListRuns(ctx, s.ID); len(runs) != 1 || runs[0].Status != store.RunRunning {
		t.Fatalf("the run after a refused end: %+v", runs)
	}
	answer := store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{Text: "ok", Usage: &store.Usage{InputTokens: 7, OutputTokens: 2}}}
	fin, added, synth, err := db.AppendAndFinish(ctx, s.ID, run.ID, done, answer)
	if err != nil || fin.Status != store.RunStatus("completed") || len(added) != 1 || added[0].Seq != 2 || len(synth) != 0 {
		t.Fatalf("finished %+v added %+v synthesized %+v %v", fin, added, synth, err)
	}
	if fin.Turns != 1 || fin.InputTokens != 7 || fin.OutputTokens != 2 {
		t.Fatalf("the run's counters do not include the answer: %+v", fin.Counters)
	}
	if _, _, _, err := db.AppendAndFinish(ctx, s.ID, run.ID, done); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("finishing twice: %v", err)
	}
}
