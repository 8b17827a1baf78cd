package store_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// The helpers checkpoint writes through: LastSeq reads the session's tail inside the caller's
// transaction, and Tx rolls back everything when fn fails.
func TestTxAndLastSeq(t *testing.T) {
	db, _ := openTemp(t)
	ctx := context.Background()
	s, err := db.CreateSession(ctx, store.NewSession{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	seqIn := func(id string) (int64, error) {
		var got int64
		err := db.Tx(ctx, func(tx *sql.Tx) (err error) {
			got, err = store.LastSeq(ctx, tx, id)
			return err
		})
		return got, err
	}
	if n, err := seqIn(s.ID); err != nil || n != 0 {
		t.Fatalf("empty session: %d %v", n, err)
	}
	if _, err := db.Append(ctx, s.ID, "", store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: "a"}},
		store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: "b"}}); err != nil {
		t.Fatal(err)
	}
	if n, err := seqIn(s.ID); err != nil || n != 2 {
		t.Fatalf("after two rows: %d %v", n, err)
	}
	if _, err := seqIn("nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing session: %v", err)
	}
	boom := errors.New("boom")
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE scratch_t(x)`); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Tx error %v", err)
	}
	var n int
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'scratch_t'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the failed transaction left its table: %d %v", n, err)
	}
}
