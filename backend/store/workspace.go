package store

import (
	"context"
	"fmt"
	"path/filepath"
)

// SetWorkspace points a session at another folder. The path must be absolute;
// the rows are untouched, and later runs of the session work in the new folder.
func (db *DB) SetWorkspace(ctx context.Context, id, workspace string) error {
	if workspace != "" {
		if !filepath.IsAbs(workspace) {
			return fmt.Errorf("set workspace of session %s: %w: %q is not an absolute path", id, ErrInvalid, workspace)
		}
		workspace = filepath.Clean(workspace)
	}
	return db.updateSession(ctx, "set workspace of", id,
		`UPDATE sessions SET workspace = ?, updated_at = ? WHERE id = ?`, workspace, db.nowMS(), id)
}
