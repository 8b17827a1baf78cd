package store_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// A session keeps its own provider and model: set at creation, changed for the next run,
// kept by a fork and an export/import; each run records the provider it used.
func TestSessionProviderAndModel(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	s, err := db.CreateSession(ctx, store.NewSession{Title: "t", Workspace: "/w", Model: "claude-sonnet-4-5", Provider: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Provider != "claude" || s.Model != "claude-sonnet-4-5" {
		t.Fatalf("created %+v", s)
	}
	run, err := db.StartRun(ctx, store.NewRun{SessionID: s.ID, Model: s.Model, Provider: s.Provider})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.FinishRun(ctx, run.ID, store.RunResult{Status: "completed"}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetSessionModel(ctx, s.ID, "local", "qwen3"); err != nil {
		t.Fatal(err)
	}
	if err := db.SetSessionModel(ctx, s.ID, "local", " "); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("empty model: %v", err)
	}
	if err := db.SetSessionModel(ctx, "nope", "local", "m"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	db.Close()
	db = openPath(t, path)
	got, err := db.GetSession(ctx, s.ID)
	if err != nil || got.Provider != "local" || got.Model != "qwen3" {
		t.Fatalf("after the change and a reopen: %+v %v", got, err)
	}
	runs, err := db.ListRuns(ctx, s.ID)
	if err != nil || len(runs) != 1 || runs[0].Provider != "claude" || runs[0].Model != "claude-sonnet-4-5" {
		t.Fatalf("the run row keeps what it ran with: %+v %v", runs, err)
	}

	mustAppend(t, db, s.ID, "", user("hello"))
	fork, err := db.Fork(ctx, s.ID, 1)
	if err != nil || fork.Provider != "local" || fork.Model != "qwen3" {
		t.Fatalf("fork: %+v %v", fork, err)
	}
	var buf bytes.Buffer
	if err := db.Export(ctx, s.ID, &buf); err != nil {
		t.Fatal(err)
	}
	imp, err := db.Import(ctx, &buf)
	if err != nil || imp.Provider != "local" || imp.Model != "qwen3" {
		t.Fatalf("import: %+v %v", imp, err)
	}
	runs, err = db.ListRuns(ctx, imp.ID)
	if err != nil || len(runs) != 1 || runs[0].Provider != "claude" {
		t.Fatalf("imported runs: %+v %v", runs, err)
	}
}
