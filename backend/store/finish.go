package store

import (
	"context"
	"database/sql"
	"fmt"
)

// AppendAndFinish appends rows to a run's session and records how the run ended, in one
// transaction: one durable commit where Append then FinishRun make two. The runner uses it
// for a run's last rows (its answer) when nothing has to happen between storing them and
// finishing the run (no Stop hook to read them). added are the rows appended, synthesized the
// results FinishRun gives calls still without one. On error nothing is stored.
func (db *DB) AppendAndFinish(ctx context.Context, sessionID, runID string, res RunResult, chunks ...NewChunk) (run Run, added, synthesized []Chunk, err error) {
	if res.Status == "" || res.Status == RunRunning {
		return Run{}, nil, nil, fmt.Errorf("finish run %s: %w: status %q", runID, ErrInvalid, res.Status)
	}
	ps, err := prepareRows(sessionID, chunks)
	if err != nil {
		return Run{}, nil, nil, err
	}
	err = db.tx(ctx, func(tx *sql.Tx) error {
		if len(chunks) > 0 {
			if added, err = db.appendTx(ctx, tx, sessionID, runID, chunks, ps); err != nil {
				return fmt.Errorf("append to session %s: %w", sessionID, err)
			}
		}
		if run, synthesized, err = db.finishTx(ctx, tx, runID, res); err != nil {
			return err
		}
		if run.SessionID != sessionID {
			return fmt.Errorf("%w: run %s belongs to session %s, not %s", ErrInvalid, runID, run.SessionID, sessionID)
		}
		return nil
	})
	if err != nil {
		return Run{}, nil, nil, fmt.Errorf("finish run %s: %w", runID, err)
	}
	return run, added, synthesized, nil
}
