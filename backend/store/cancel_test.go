package store_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
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

	// Done while the transaction runs: nothing of it is committed.
	ctx, cancel = context.WithCancel(context.Background())
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO settings(key, value) VALUES ('cancelled', 'x')`); err != nil {
			return err
		}
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("transaction whose context ended before COMMIT: %v", err)
	}
	var n int
	db.SQL().QueryRow(`SELECT count(*) FROM settings WHERE key = 'cancelled'`).Scan(&n)
	if n != 0 {
		t.Fatal("a transaction whose context ended before COMMIT was committed")
	}
}

// Typed payloads skip the decoding round trip (canonical): the stored JSON and what the
// store checks stay those of the round trip, also for text that is not valid UTF-8 (replaced
// when stored, and a tool call still paired with its result).
func TestTypedPayloadsStoreAsTheirJSON(t *testing.T) {
	db, _ := openTemp(t)
	s := mustSession(t, db, "typed")
	rows := mustAppend(t, db, s.ID, "", assistant("bad \xff text", call("c\xff", "ls", `{"a": 1}`)))
	want := strings.ReplaceAll(`{"text":"bad ? text","reasoning":"","tool_calls":[{"id":"c?","name":"ls","arguments":"{\"a\": 1}"}]}`, "?", "\ufffd")
	if got := string(rows[0].Payload); got != want {
		t.Fatalf("stored %s", got)
	}
	mustAppend(t, db, s.ID, "", result("c\xff", "ls", "ok"))
	ptr := &store.AssistantPayload{Text: "by pointer"}
	rows = mustAppend(t, db, s.ID, "", store.NewChunk{Kind: store.KindAssistant, Payload: ptr})
	if got := string(rows[0].Payload); got != `{"text":"by pointer","reasoning":"","tool_calls":[]}` || ptr.ToolCalls != nil {
		t.Fatalf("stored %s, the caller's payload became %+v", got, ptr)
	}
	if _, err := db.Append(context.Background(), s.ID, "", store.NewChunk{Kind: store.KindAssistant,
		Payload: store.AssistantPayload{Raw: []byte(`{not json`)}}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("raw turn that is not JSON: %v", err)
	}
}
