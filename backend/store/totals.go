package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Totals are what a session has used over all its runs: the sum of the run records (every
// run counts, whatever it ended as: a bound, a cancel, an interruption). Turns are model calls
// as run_finished counts them. Derived only from stored runs, so a replay or an imported
// export gives the same numbers.
type Totals struct {
	SessionID    string  `json:"session_id"`
	Runs         int     `json:"runs"`
	Turns        int     `json:"turns"`
	ToolCalls    int     `json:"tool_calls"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	Cost         float64 `json:"cost"`
	// Parts of InputTokens read from and written to the provider's prompt cache.
	CacheReadTokens  int64 `json:"cache_read_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
	// Children is each child session's share, set by FamilyTotals only (whose sums include it).
	Children []ChildTotals `json:"children,omitempty"`
}

const totalsCols = `count(*), coalesce(sum(turns), 0), coalesce(sum(tool_calls), 0), coalesce(sum(input_tokens), 0),
	coalesce(sum(output_tokens), 0), coalesce(sum(cost_usd), 0), coalesce(sum(cache_read_tokens), 0),
	coalesce(sum(cache_write_tokens), 0)`

// SessionTotals sums the session's runs. An unknown session is ErrNotFound.
func (db *DB) SessionTotals(ctx context.Context, id string) (Totals, error) {
	t := Totals{SessionID: id}
	err := db.read(ctx, func(tx execer) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, id).Scan(&one); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("session %q: %w", id, ErrNotFound)
			}
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT `+totalsCols+` FROM runs WHERE session_id = ?`, id).
			Scan(&t.Runs, &t.Turns, &t.ToolCalls, &t.InputTokens, &t.OutputTokens, &t.Cost, &t.CacheReadTokens, &t.CacheWriteTokens)
	})
	if err != nil {
		return Totals{}, fmt.Errorf("totals of session %s: %w", id, err)
	}
	return t, nil
}

// AllTotals sums every session's runs, by session id (sessions without runs are absent:
// their totals are zero).
func (db *DB) AllTotals(ctx context.Context) (map[string]Totals, error) {
	out := map[string]Totals{}
	err := db.read(ctx, func(tx execer) error {
		rows, err := tx.QueryContext(ctx, `SELECT session_id, `+totalsCols+` FROM runs GROUP BY session_id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t Totals
			if err := rows.Scan(&t.SessionID, &t.Runs, &t.Turns, &t.ToolCalls, &t.InputTokens, &t.OutputTokens, &t.Cost,
				&t.CacheReadTokens, &t.CacheWriteTokens); err != nil {
				return err
			}
			out[t.SessionID] = t
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("totals of every session: %w", err)
	}
	return out, nil
}

// SessionMode is the mode the window keeps for a session: plan or execute, and the approval
// mode the person picked for it ("" = the saved default).
type SessionMode struct {
	Mode    RunMode `json:"mode"`
	Approve string  `json:"approve"`
}

// GetSessionMode returns the session's mode.
func (db *DB) GetSessionMode(ctx context.Context, id string) (SessionMode, error) {
	var m SessionMode
	err := db.sql.QueryRowContext(ctx, `SELECT mode, approve FROM sessions WHERE id = ?`, id).Scan(&m.Mode, &m.Approve)
	if errors.Is(err, sql.ErrNoRows) {
		return SessionMode{}, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return SessionMode{}, fmt.Errorf("mode of session %s: %w", id, classify(err))
	}
	return m, nil
}

// SetSessionMode stores the session's mode. The approval mode is not checked here: the
// approval policy owns that set (tools.Mode).
func (db *DB) SetSessionMode(ctx context.Context, id string, m SessionMode) error {
	if !m.Mode.Valid() {
		return fmt.Errorf("set mode of session %s: %w: mode %q (want plan or execute)", id, ErrInvalid, m.Mode)
	}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET mode = ?, approve = ? WHERE id = ?`, m.Mode, m.Approve, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("session %q: %w", id, ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set mode of session %s: %w", id, err)
	}
	return nil
}
