package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// SessionBudgets are a session's own budgets, set in the window's header and kept with the
// session. A nil field takes the saved default (Settings); a flag of `loopdesk run` overrides
// either. 0 means no limit, as in Settings.
type SessionBudgets struct {
	MaxTurns       *int     `json:"max_turns"`
	MaxToolCalls   *int     `json:"max_tool_calls"`
	MaxTokens      *int64   `json:"max_tokens"`
	MaxCostUSD     *float64 `json:"max_cost_usd"`
	TimeoutSeconds *int     `json:"timeout_seconds"`
}

// negative says which budget is below zero, or "".
func (b SessionBudgets) negative() string {
	switch {
	case b.MaxTurns != nil && *b.MaxTurns < 0:
		return "max_turns"
	case b.MaxToolCalls != nil && *b.MaxToolCalls < 0:
		return "max_tool_calls"
	case b.MaxTokens != nil && *b.MaxTokens < 0:
		return "max_tokens"
	case b.MaxCostUSD != nil && *b.MaxCostUSD < 0:
		return "max_cost_usd"
	case b.TimeoutSeconds != nil && *b.TimeoutSeconds < 0:
		return "timeout_seconds"
	}
	return ""
}

// GetSessionBudgets returns the session's own budgets (all nil when none were set).
func (db *DB) GetSessionBudgets(ctx context.Context, id string) (SessionBudgets, error) {
	var raw string
	err := db.sql.QueryRowContext(ctx, `SELECT budgets FROM sessions WHERE id = ?`, id).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return SessionBudgets{}, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return SessionBudgets{}, fmt.Errorf("budgets of session %s: %w", id, classify(err))
	}
	var b SessionBudgets
	if err := json.Unmarshal([]byte(raw), &b); err != nil {
		return SessionBudgets{}, fmt.Errorf("budgets of session %s: %w", id, err)
	}
	return b, nil
}

// SetSessionBudgets stores the session's own budgets; a negative one is ErrInvalid and
// nothing is stored.
func (db *DB) SetSessionBudgets(ctx context.Context, id string, b SessionBudgets) error {
	if f := b.negative(); f != "" {
		return fmt.Errorf("set budgets of session %s: %w: %s cannot be negative", id, ErrInvalid, f)
	}
	raw, err := json.Marshal(b)
	if err != nil {
		return err
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET budgets = ? WHERE id = ?`, string(raw), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("session %q: %w", id, ErrNotFound)
		}
		return nil
	})
}
