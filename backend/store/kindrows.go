package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// What the window reads of a whole session when it opens one (the files its calls read, the
// plan pinned above the message box) comes from the rows that can hold it, never from every
// row: a long-lived session's tool outputs (a megabyte each, a gigabyte in all) are not read
// to find the calls beside them. The kind comes before the payload in each record, so rows
// of other kinds are passed over without their payloads being read.

// ChunksOfKindAfter returns the session's rows of one kind with seq > after, oldest first.
// ErrNotFound for no such session.
func (db *DB) ChunksOfKindAfter(ctx context.Context, sessionID string, kind Kind, after int64) ([]Chunk, error) {
	var out []Chunk
	err := db.read(ctx, func(tx execer) error {
		if _, err := span(ctx, tx, sessionID); err != nil {
			return err
		}
		var err error
		out, err = db.queryChunks(ctx, tx, sessionID, `SELECT `+chunkCols+` FROM chunks
			WHERE session_id = ? AND seq > ? AND kind = ? ORDER BY seq`, sessionID, after, string(kind))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s rows of session %s after %d: %w", kind, sessionID, after, err)
	}
	return out, nil
}

// SessionPlan is LatestPlan of the session's rows, reading only the rows that may set a plan
// (notes, and assistant rows naming update_plan), newest first, and the results of the turn
// of each such call until one stands. ErrNotFound for no such session.
func (db *DB) SessionPlan(ctx context.Context, sessionID string) (*PinnedPlan, error) {
	var out *PinnedPlan
	err := db.read(ctx, func(tx execer) error {
		if _, err := span(ctx, tx, sessionID); err != nil {
			return err
		}
		cands, err := db.queryChunks(ctx, tx, sessionID, `SELECT `+chunkCols+` FROM chunks WHERE session_id = ?
			AND (kind = ? OR (kind = ? AND instr(payload, ?) > 0)) ORDER BY seq DESC`, sessionID, string(KindNote), string(KindAssistant), `"`+UpdatePlanTool+`"`)
		if err != nil {
			return err
		}
		for _, c := range cands {
			failed := map[callOfRow]bool{}
			if c.Kind == KindAssistant {
				// The turn's results: after the row, before the next assistant row.
				results, err := db.queryChunks(ctx, tx, sessionID, `SELECT `+chunkCols+` FROM chunks WHERE session_id = ? AND seq > ?
					AND seq < coalesce((SELECT min(seq) FROM chunks WHERE session_id = ? AND seq > ? AND kind = 'assistant'), 9e18)
					AND kind = 'tool_result' ORDER BY seq`, sessionID, c.Seq, sessionID, c.Seq)
				if err != nil {
					return err
				}
				for _, r := range results {
					var p ToolResultPayload
					if err := json.Unmarshal(r.Payload, &p); err != nil {
						return fmt.Errorf("row %d: %w", r.Seq, err)
					}
					failed[callOfRow{c.Seq, p.CallID}] = p.IsError
				}
			}
			if p, ok := planOf(c, failed); ok {
				out = p
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("plan of session %s: %w", sessionID, err)
	}
	return out, nil
}

// ReportChunks returns every row of the session, oldest first, as an approval report reads
// them: the assistant and approval rows whole; a tool result's payload only as
// {"sandboxed":true} when its command ran sandboxed, else {}; the other rows' payloads {}.
// Times, kinds and seqs are every row's. ErrNotFound for no such session.
func (db *DB) ReportChunks(ctx context.Context, sessionID string) ([]Chunk, error) {
	var out []Chunk
	err := db.read(ctx, func(tx execer) error {
		if _, err := span(ctx, tx, sessionID); err != nil {
			return err
		}
		var err error
		out, err = db.queryChunks(ctx, tx, sessionID, `SELECT seq, kind, CASE
				WHEN kind IN (?, ?) THEN payload
				WHEN kind = ? AND instr(payload, '"sandboxed":true') > 0 THEN '{"sandboxed":true}'
				ELSE '{}' END, run_id, created_at
			FROM chunks WHERE session_id = ? ORDER BY seq`, string(KindAssistant), string(KindApproval), string(KindToolResult), sessionID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rows of session %s for a report: %w", sessionID, err)
	}
	return out, nil
}
