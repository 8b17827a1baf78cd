package checkpoint

import (
	"context"
	"fmt"
)

// CallChange is a change a tool call made, with the call that made it: (RunID, CallID)
// names the call (call ids are unique only within a run's turn), Seq its result row.
type CallChange struct {
	Change
	RunID  string `json:"run_id"`
	CallID string `json:"call_id"`
}

// CallChanges lists the changes the session's tool calls made (By "agent"), linked to rows
// after seq after (0: all), oldest row first. It is the one record of what a call changed:
// the window's Workspace tab and every other view read it rather than guessing from a call's
// arguments, so a shell command's edits count as much as write_file's.
func (r *Recorder) CallChanges(ctx context.Context, sessionID string, after int64) ([]CallChange, error) {
	spans, err := r.lineOf(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	where, args := spansWhere(spans, false)
	rows, err := queryChanges(ctx, r.sql, where+` AND c.seq > ?`, append(args, after)...)
	if err != nil {
		return nil, fmt.Errorf("changes of the calls of session %s: %w", sessionID, err)
	}
	var out []CallChange
	for _, row := range rows {
		if row.By == ByAgent {
			out = append(out, CallChange{Change: row.Change, RunID: row.runID, CallID: row.callID})
		}
	}
	return out, nil
}
