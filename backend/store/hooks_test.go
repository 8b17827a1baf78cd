package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// Test hooks: what the tests of package store_test need to look inside, kept out of the API.

// invariant the store keeps.
func (db *DB) SQL() *sql.DB { return db.sql }

// PendingCalls returns the tool calls of the session's last assistant turn
// that have no result yet, in the order the model made them. Outside a live
// run it is empty: forks, imports, FinishRun and repair-on-open all answer
// dangling calls.
func (db *DB) PendingCalls(ctx context.Context, sessionID string) ([]ToolCall, error) {
	var out []ToolCall
	err := db.read(ctx, func(tx execer) error {
		last, pending, err := sessionTail(ctx, tx, sessionID)
		if err != nil || len(pending) == 0 {
			return err
		}
		var payload string
		if err := tx.QueryRowContext(ctx, `SELECT payload FROM chunks WHERE session_id = ? AND seq <= ? AND kind = 'assistant'
			ORDER BY seq DESC LIMIT 1`, sessionID, last).Scan(&payload); err != nil {
			return err
		}
		var a AssistantPayload
		if err := json.Unmarshal([]byte(payload), &a); err != nil {
			return err
		}
		for _, c := range a.ToolCalls {
			for _, p := range pending {
				if p.ID == c.ID {
					out = append(out, c)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pending calls of session %s: %w", sessionID, err)
	}
	return out, nil
}

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
