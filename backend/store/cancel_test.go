package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// A write whose context is done commits nothing and says why, though the statements inside a
// write transaction run without the context's cancellation (stmts.go): the transaction is
// still bound to it.
func TestCancelledWritesCommitNothing(t *testing.T) {
	db, _ := openTemp(t)
	s := mustSession(t, db, "cancelled")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := db.Append(ctx, s.ID, "", user("never stored")); !errors.Is(err, context.Canceled) {
		t.Fatalf("append with a cancelled context: %v", err)
	}
	if _, _, err := db.StartRunWith(ctx, store.NewRun{SessionID: s.ID}, user("nor this")); !errors.Is(err, context.Canceled) {
		t.Fatalf("start run with a cancelled context: %v", err)
	}
	rows, err := db.Chunks(context.Background(), s.ID)
	if err != nil || len(rows) != 0 {
		t.Fatalf("rows after cancelled writes: %+v %v", rows, err)
	}
	if runs, err := db.ListRuns(context.Background(), s.ID); err != nil || len(runs) != 0 {
		t.Fatalf("runs after a cancelled start: %+v %v", runs, err)
	}
	// A live context still writes through the same cached statements.
	mustAppend(t, db, s.ID, "", user("stored"))
}
