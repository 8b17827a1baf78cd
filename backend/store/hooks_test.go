package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Test hooks: what the tests of package store_test need to look inside, kept out of the API.

// GetRun returns one run or an error wrapping ErrNotFound.
func (db *DB) GetRun(ctx context.Context, id string) (Run, error) {
	run, err := scanRun(db.sql.QueryRowContext(ctx, `SELECT `+runCols+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, fmt.Errorf("run %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Run{}, fmt.Errorf("get run %s: %w", id, classify(err))
	}
	return run, nil
}
