package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"syscall"
)

// RepairReport says what Repair changed. Everything it did is also visible
// as rows (synthesized tool results) and run statuses.
type RepairReport struct {
	// Runs marked interrupted.
	Runs []string `json:"runs"`
	// Sessions that got synthesized tool results.
	Sessions []string `json:"sessions"`
	// Results is the number of synthesized tool results.
	Results int `json:"results"`
}

// Interrupted is how every synthesized tool result's content starts.
const Interrupted = "interrupted"

// Repair finds what a crash or kill left dangling and closes it, in one
// transaction: runs still marked running whose process is gone are marked
// interrupted, and every tool call without a result in a session with no
// live run gets an error tool_result whose content starts "interrupted".
// Nothing is deleted or rewritten. Open calls it; it is cheap when there is
// nothing to do.
func (db *DB) Repair(ctx context.Context) (RepairReport, error) {
	var rep RepairReport
	err := db.tx(ctx, func(tx *sql.Tx) error {
		rep = RepairReport{}
		now := db.nowMS()
		dead, err := db.deadRuns(ctx, tx)
		if err != nil {
			return err
		}
		lastRun := map[string]string{}
		for _, r := range dead {
			if _, err := tx.ExecContext(ctx, `UPDATE runs SET status = ?, ended_at = ?,
				error = 'interrupted: Loopdesk stopped before the run finished' WHERE id = ?`, RunInterrupted, now, r.id); err != nil {
				return err
			}
			// The spend the run's rows record, whatever the process managed to count.
			if _, err := rebuildCounters(ctx, tx, r.session, r.id); err != nil {
				return err
			}
			rep.Runs = append(rep.Runs, r.id)
			lastRun[r.session] = r.id
		}
		ids, err := queryStrings(ctx, tx, `SELECT id FROM sessions WHERE pending <> '[]' ORDER BY id`)
		if err != nil {
			return err
		}
		for _, id := range ids {
			live, err := db.liveRun(ctx, tx, id)
			if err != nil {
				return err
			}
			if live != "" {
				continue
			}
			added, err := db.answerPending(ctx, tx, id, lastRun[id],
				"interrupted: Loopdesk stopped before this tool call returned a result; it may or may not have run", now)
			if err != nil {
				return fmt.Errorf("session %s: %w", id, err)
			}
			rep.Sessions = append(rep.Sessions, id)
			rep.Results += len(added)
		}
		return nil
	})
	if err != nil {
		return RepairReport{}, err
	}
	return rep, nil
}

type runOwner struct {
	id, session, host string
	pid               int
}

func (db *DB) running(ctx context.Context, tx execer, where string, args ...any) ([]runOwner, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, session_id, pid, host FROM runs WHERE status = 'running' `+where+` ORDER BY started_at, rowid`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []runOwner
	for rows.Next() {
		var r runOwner
		if err := rows.Scan(&r.id, &r.session, &r.pid, &r.host); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (db *DB) deadRuns(ctx context.Context, tx execer) ([]runOwner, error) {
	all, err := db.running(ctx, tx, "")
	if err != nil {
		return nil, err
	}
	var dead []runOwner
	for _, r := range all {
		if !db.alive(r) {
			dead = append(dead, r)
		}
	}
	return dead, nil
}

// liveRun returns the id of a run on the session that is running in a live
// process, or "".
func (db *DB) liveRun(ctx context.Context, tx execer, sessionID string) (string, error) {
	rs, err := db.running(ctx, tx, "AND session_id = ?", sessionID)
	if err != nil {
		return "", err
	}
	for _, r := range rs {
		if db.alive(r) {
			return r.id, nil
		}
	}
	return "", nil
}

// alive reports whether the process that started a run still exists. A run
// recorded on another host is assumed alive: we cannot tell, and repairing a
// live session would corrupt it, while leaving a dead one waits for that host.
func (db *DB) alive(r runOwner) bool {
	if r.host != db.host {
		return true
	}
	if r.pid <= 0 {
		return false
	}
	err := syscall.Kill(r.pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func queryStrings(ctx context.Context, tx execer, q string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
