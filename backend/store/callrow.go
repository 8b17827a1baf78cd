package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// CallRow returns the seq of the assistant row holding call callID of run runID, and the
// call: the latest such row stored before seq before (a call id is unique only within a turn,
// so a run that reuses one is matched to the turn before the row asking). ErrNotFound when
// there is none (a row of an imported or repaired session may lack its run).
func (db *DB) CallRow(ctx context.Context, sessionID, runID, callID string, before int64) (int64, ToolCall, error) {
	var seq int64
	var call ToolCall
	err := db.read(ctx, func(tx execer) error {
		rows, err := tx.QueryContext(ctx, `SELECT seq, payload FROM chunks WHERE session_id = ? AND run_id = ?
			AND kind = 'assistant' AND seq < ? ORDER BY seq DESC`, sessionID, runID, before)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var payload string
			if err := rows.Scan(&seq, &payload); err != nil {
				return err
			}
			var a AssistantPayload
			if json.Unmarshal([]byte(payload), &a) != nil {
				continue
			}
			for _, c := range a.ToolCalls {
				if c.ID == callID {
					call = c
					return nil
				}
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return ErrNotFound
	})
	if err != nil {
		return 0, ToolCall{}, fmt.Errorf("the row of call %s of run %s: %w", callID, runID, err)
	}
	return seq, call, nil
}
