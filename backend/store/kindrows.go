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

// ChunksOfKindAfter returns the session's rows of one kind with seq > after whose payload
// contains the text naming ("" for all), oldest first. ErrNotFound for no such session.
func (db *DB) ChunksOfKindAfter(ctx context.Context, sessionID string, kind Kind, after int64, naming string) ([]Chunk, error) {
	var out []Chunk
	err := db.read(ctx, func(tx execer) error {
		if _, err := span(ctx, tx, sessionID); err != nil {
			return err
		}
		var err error
		out, err = db.queryChunks(ctx, tx, sessionID, `SELECT `+chunkCols+` FROM chunks
			WHERE session_id = ? AND seq > ? AND kind = ? AND instr(payload, ?) > 0 ORDER BY seq`, sessionID, after, string(kind), naming)
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

// ReportChunks returns the rows of the session an approval report reads, oldest first: the
// approval rows, the row just before each, the assistant rows before the last approval (the
// calls they name), whole, and the tool results that ran sandboxed, their payload only
// {"sandboxed":true}. Tool outputs are not read into Go. ErrNotFound for no such session.
func (db *DB) ReportChunks(ctx context.Context, sessionID string) ([]Chunk, error) {
	var out []Chunk
	err := db.read(ctx, func(tx execer) error {
		if _, err := span(ctx, tx, sessionID); err != nil {
			return err
		}
		var err error
		out, err = db.queryChunks(ctx, tx, sessionID, `SELECT seq, kind,
				CASE WHEN kind = 'tool_result' THEN '{"sandboxed":true}' ELSE payload END, run_id, created_at
			FROM chunks c WHERE session_id = ?1 AND (kind = 'approval'
				OR (kind = 'tool_result' AND instr(payload, '"sandboxed":true') > 0)
				OR (kind = 'assistant' AND seq < (SELECT max(seq) FROM chunks WHERE session_id = ?1 AND kind = 'approval'))
				OR EXISTS (SELECT 1 FROM chunks n WHERE n.session_id = ?1 AND n.seq = c.seq + 1 AND n.kind = 'approval'))
			ORDER BY seq`, sessionID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rows of session %s for a report: %w", sessionID, err)
	}
	return out, nil
}
