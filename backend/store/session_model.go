package store

import (
	"context"
	"fmt"
	"strings"
)

// SetSessionModel sets the provider and model the session's next run uses; a running run
// keeps the ones it started with (each run records its own). The names are not checked
// against the configured providers here: configuration lives outside the database, and the
// caller (which knows the providers) checks them. An empty model is refused (ErrInvalid).
func (db *DB) SetSessionModel(ctx context.Context, id, provider, model string) error {
	provider, model = strings.TrimSpace(provider), strings.TrimSpace(model)
	if model == "" {
		return fmt.Errorf("set model of session %s: %w: empty model", id, ErrInvalid)
	}
	return db.updateSession(ctx, "set model of", id, `UPDATE sessions SET provider = ?, model = ?, updated_at = ? WHERE id = ?`,
		provider, model, db.nowMS(), id)
}
