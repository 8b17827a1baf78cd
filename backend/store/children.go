package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Child sessions: a task call of one session starts another session (its child), linked by
// parent_id and parent_call_id. The parent's call stays pending until the child's answer is
// stored as its result; when Loopdesk stops first (a kill, a crash), the parent's call is
// answered "interrupted" naming the child, and the child's own run is marked interrupted by
// the same Repair, so neither is left dangling.

// Children returns the child sessions started by the task calls of session parentID, oldest
// first.
func (db *DB) Children(ctx context.Context, parentID string) ([]Session, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+sessionCols+` FROM sessions
		WHERE parent_id = ? AND parent_call_id <> '' ORDER BY created_at, rowid`, parentID)
	if err != nil {
		return nil, fmt.Errorf("children of session %s: %w", parentID, classify(err))
	}
	out, err := scanSessions(rows)
	if err != nil {
		return nil, fmt.Errorf("children of session %s: %w", parentID, classify(err))
	}
	return out, nil
}

// scanSessions reads every session of rows and closes them.
func scanSessions(rows *sql.Rows) ([]Session, error) {
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// RunChildren returns the child sessions started by the task calls of run runID of session
// parentID: those forked at one of that run's assistant rows. It reads the run's rows through
// the chunks_run index, not the session's.
func (db *DB) RunChildren(ctx context.Context, parentID, runID string) ([]Session, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+sessionCols+` FROM sessions
		WHERE parent_id = ?1 AND parent_call_id <> '' AND fork_seq IN (SELECT seq FROM chunks INDEXED BY chunks_run
			WHERE run_id = ?2 AND session_id = ?1 AND kind IN ('assistant', 'usage', 'summary') AND kind = 'assistant')
		ORDER BY created_at, rowid`, parentID, runID)
	if err != nil {
		return nil, fmt.Errorf("children of run %s of session %s: %w", runID, parentID, classify(err))
	}
	out, err := scanSessions(rows)
	if err != nil {
		return nil, fmt.Errorf("children of run %s of session %s: %w", runID, parentID, classify(err))
	}
	return out, nil
}

// ChildOf returns the child session the call callID of session parentID started, or an error
// wrapping ErrNotFound.
func (db *DB) ChildOf(ctx context.Context, parentID, callID string) (Session, error) {
	s, err := childOf(ctx, db.sql, parentID, callID)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("child of call %s in session %s: %w", callID, parentID, ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("child of call %s in session %s: %w", callID, parentID, classify(err))
	}
	return s, nil
}

// callRowSQL finds the latest assistant row of session ?1 holding the call ?2 (call ids may
// repeat across runs: the latest is the one whose call is being answered). Children stored
// before this existed keep 0 (they show under the parent session itself).
const callRowSQL = `SELECT c.seq FROM chunks c, json_each(c.payload, '$.tool_calls') t
	WHERE c.session_id = ? AND c.kind = 'assistant' AND json_extract(t.value, '$.id') = ? ORDER BY c.seq DESC LIMIT 1`

// callRow is the seq of the parent's row holding the call that starts a child (its place in
// the lineage tree), 0 for a session that is no child or whose call is not stored.
func callRow(ctx context.Context, q rowQuerier, parentID, callID string) (int64, error) {
	if callID == "" {
		return 0, nil
	}
	var seq int64
	err := q.QueryRowContext(ctx, callRowSQL, parentID, callID).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return seq, err
}

type rowQuerier interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func childOf(ctx context.Context, q rowQuerier, parentID, callID string) (Session, error) {
	return scanSession(q.QueryRowContext(ctx, `SELECT `+sessionCols+` FROM sessions
		WHERE parent_id = ? AND parent_call_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1`, parentID, callID))
}

// interruptedFor is the content of the result a pending call gets when it is answered without
// having returned (content): for a task call whose child session exists, the same words
// naming the child, so the parent's model (and the person) can find what it did.
func interruptedFor(ctx context.Context, tx rowQuerier, sessionID, callID, content string) (string, error) {
	child, err := childOf(ctx, tx, sessionID, callID)
	if errors.Is(err, sql.ErrNoRows) {
		return content, nil
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s (child session %s %q was interrupted before it returned its answer; its rows so far are kept)",
		content, child.ID, child.Title), nil
}

// ChildTotals is what one child session used, its own children included.
type ChildTotals struct {
	SessionID string `json:"session_id"`
	// Turns and ToolCalls count against the parent's limits like its own (core.ChildSpend).
	Turns        int     `json:"turns"`
	ToolCalls    int     `json:"tool_calls"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	Cost         float64 `json:"cost"`
}

// FamilyTotals is SessionTotals with the spend of the session's children (and theirs) added,
// and one entry per direct child: a parent's meters count what it delegated.
func (db *DB) FamilyTotals(ctx context.Context, id string) (Totals, []ChildTotals, error) {
	t, err := db.SessionTotals(ctx, id)
	if err != nil {
		return Totals{}, nil, err
	}
	kids, err := db.Children(ctx, id)
	if err != nil {
		return Totals{}, nil, err
	}
	out := []ChildTotals{}
	for _, k := range kids {
		kt, _, err := db.FamilyTotals(ctx, k.ID) // depth is bounded (core.MaxTaskDepth)
		if err != nil {
			return Totals{}, nil, err
		}
		t.Runs, t.Turns, t.ToolCalls = t.Runs+kt.Runs, t.Turns+kt.Turns, t.ToolCalls+kt.ToolCalls
		t.InputTokens, t.OutputTokens, t.Cost = t.InputTokens+kt.InputTokens, t.OutputTokens+kt.OutputTokens, t.Cost+kt.Cost
		t.CacheReadTokens, t.CacheWriteTokens = t.CacheReadTokens+kt.CacheReadTokens, t.CacheWriteTokens+kt.CacheWriteTokens
		out = append(out, ChildTotals{SessionID: k.ID, Turns: kt.Turns, ToolCalls: kt.ToolCalls, InputTokens: kt.InputTokens, OutputTokens: kt.OutputTokens, Cost: kt.Cost})
	}
	t.Children = out
	return t, out, nil
}
