package store

import (
	"context"
	"database/sql"
)

// Helpers for the packages that keep their own tables in the store's file
// (backend/checkpoint): they write through the store's transactions and read the
// store's tables through its functions, so the store's invariants and error mapping
// stay in one place.

// Tx runs fn in one immediate transaction, with SQLite's errors mapped as the store
// maps its own (ErrLocked, ErrReadOnly, ...). fn must not write the store's tables.
func (db *DB) Tx(ctx context.Context, fn func(*sql.Tx) error) error { return db.tx(ctx, fn) }

// LastSeq is the seq of the session's last row inside tx: 0 for a session without
// rows, ErrNotFound for one that does not exist.
func LastSeq(ctx context.Context, tx *sql.Tx, sessionID string) (int64, error) {
	last, _, err := sessionTail(ctx, tx, sessionID)
	return last, err
}
