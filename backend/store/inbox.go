package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// EndedRun is a run that ended, with what the inbox shows of its session.
type EndedRun struct {
	RunID     string    `json:"run_id"`
	SessionID string    `json:"session_id"`
	Title     string    `json:"session_title"`
	ParentID  string    `json:"parent_session_id"` // "" for a top-level session
	Workspace string    `json:"workspace"`
	Provider  string    `json:"provider"`
	Model     string    `json:"model"`
	Status    RunStatus `json:"status"`
	Error     string    `json:"error"`
	CostUSD   float64   `json:"cost_usd"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	// Origin is where the run came from (RunOrigin; empty for a run recorded before it was
	// kept), PID the process that ran it.
	Origin RunOrigin `json:"origin"`
	PID    int       `json:"pid"`
}

// RunOrigin is where a process's runs come from: Kind "window", "run" or "acp" (the inbox's
// origin kinds), and for acp the editor's ACP client name.
type RunOrigin struct {
	Kind   string `json:"kind"`
	Client string `json:"client"`
}

// SetRunOrigin says where the runs this process starts from now on come from; each run
// keeps it (EndedRun.Origin). A process that never sets it records "".
func (db *DB) SetRunOrigin(o RunOrigin) { db.origin.Store(&o) }

func (db *DB) runOrigin() RunOrigin {
	if o := db.origin.Load(); o != nil {
		return *o
	}
	return RunOrigin{}
}

// EndedRuns lists the runs that ended at or after since and were not dismissed, newest
// first. A fork's parent is not a parent here: only a child session (of a task call) has one.
func (db *DB) EndedRuns(ctx context.Context, since time.Time) ([]EndedRun, error) {
	out := []EndedRun{}
	err := db.read(ctx, func(tx execer) error {
		rows, err := tx.QueryContext(ctx, `SELECT r.id, r.session_id, s.title,
			CASE WHEN s.parent_call_id <> '' THEN s.parent_id ELSE '' END, s.workspace, r.provider, r.model,
			r.status, r.error, r.cost_usd, r.started_at, r.ended_at, r.origin, r.origin_client, r.pid
			FROM runs r JOIN sessions s ON s.id = r.session_id
			WHERE r.ended_at >= ? AND r.dismissed_at IS NULL AND r.status <> ?
			ORDER BY r.ended_at DESC, r.rowid DESC`, since.UnixMilli(), RunRunning)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e EndedRun
			var started, ended int64
			var parent sql.NullString
			if err := rows.Scan(&e.RunID, &e.SessionID, &e.Title, &parent, &e.Workspace, &e.Provider, &e.Model,
				&e.Status, &e.Error, &e.CostUSD, &started, &ended, &e.Origin.Kind, &e.Origin.Client, &e.PID); err != nil {
				return err
			}
			e.ParentID, e.StartedAt, e.EndedAt = parent.String, fromMS(started), fromMS(ended)
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list ended runs: %w", classify(err))
	}
	return out, nil
}

// DismissRun takes an ended run off the inbox for good. ErrNotFound when there is no such
// run; ErrInvalid while it is still running.
func (db *DB) DismissRun(ctx context.Context, runID string) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var status RunStatus
		if err := tx.QueryRowContext(ctx, `SELECT status FROM runs WHERE id = ?`, runID).Scan(&status); err == sql.ErrNoRows {
			return fmt.Errorf("run %q: %w", runID, ErrNotFound)
		} else if err != nil {
			return err
		}
		if status == RunRunning {
			return fmt.Errorf("%w: run %s is still going", ErrInvalid, runID)
		}
		_, err := tx.ExecContext(ctx, `UPDATE runs SET dismissed_at = ? WHERE id = ? AND dismissed_at IS NULL`, db.nowMS(), runID)
		return err
	})
	if err != nil {
		return fmt.Errorf("dismiss run %s: %w", runID, err)
	}
	return nil
}
