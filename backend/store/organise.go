package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// ListFilter narrows ListSessionsBy. The zero value lists what the session list shows: every
// session not archived, whatever its project.
type ListFilter struct {
	// Project, when set, keeps the sessions of that project only.
	Project string
	// Archived lists the archived sessions only; All lists archived and not alike.
	Archived bool
	All      bool
}

// ListSessionsBy returns the sessions f keeps, most recently updated first.
func (db *DB) ListSessionsBy(ctx context.Context, f ListFilter) ([]Session, error) {
	where, args := f.where()
	rows, err := db.sql.QueryContext(ctx, `SELECT `+sessionCols+` FROM sessions WHERE `+where+` ORDER BY updated_at DESC, rowid DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", classify(err))
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", classify(err))
	}
	return out, nil
}

// SetArchived archives (or brings back) the sessions ids, all or none: an unknown id is
// ErrNotFound and changes nothing. It leaves updated_at alone: archiving is not work on the
// session, and bringing it back puts it where it was in the list.
func (db *DB) SetArchived(ctx context.Context, ids []string, archived bool) error {
	what := map[bool]string{true: "archive", false: "unarchive"}[archived]
	return db.updateEach(ctx, what, ids, `UPDATE sessions SET archived = ? WHERE id = ?`, archived)
}

// MaxProjectName is the longest project name, in characters.
const MaxProjectName = 80

// SetProject puts the sessions ids in project name ("" takes them out of any), all or none.
// A name is trimmed; one longer than MaxProjectName or with a control character is ErrInvalid.
func (db *DB) SetProject(ctx context.Context, ids []string, name string) error {
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > MaxProjectName || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return fmt.Errorf("set project: %w: a project name is one line of at most %d characters", ErrInvalid, MaxProjectName)
	}
	return db.updateEach(ctx, "set project of", ids, `UPDATE sessions SET project = ? WHERE id = ?`, name)
}

// Projects returns the project names in use, sorted.
func (db *DB) Projects(ctx context.Context) ([]string, error) {
	names, err := queryStrings(ctx, db.sql, `SELECT DISTINCT project FROM sessions WHERE project <> '' ORDER BY project COLLATE NOCASE`)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", classify(err))
	}
	if names == nil {
		names = []string{}
	}
	return names, nil
}

// updateEach runs q (with value, then the id) for every id in one transaction.
func (db *DB) updateEach(ctx context.Context, what string, ids []string, q string, value any) error {
	if len(ids) == 0 {
		return fmt.Errorf("%s sessions: %w: no session named", what, ErrInvalid)
	}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			res, err := tx.ExecContext(ctx, q, value, id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return fmt.Errorf("session %q: %w", id, ErrNotFound)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s sessions: %w", what, classify(err))
	}
	return nil
}

// Removed is what deleting a session took out of the database.
type Removed struct {
	// Rows is how many rows went; Size what the session took (shared images and checkpoint
	// chunks included); Images how many images no other session showed went with it.
	Rows   int64 `json:"rows"`
	Size   Size  `json:"size"`
	Images int   `json:"images"`
}

// RemoveSession deletes the session with its rows, runs, session-scoped rules, its checkpoint
// records (the chunks no other record or folder uses go by the checkpoint triggers) and the
// images no other session shows. Its forks keep their own copies of the rows. The pages freed
// stay in the file until Reclaim. The rows go first, oldest first, in short transactions
// (removeRows), so a long session's delete never holds the write lock long enough to stall a
// running session's appends; a delete cut short leaves the session with its newest rows, still
// gap-free (Span), and deleting it again finishes the job.
func (db *DB) RemoveSession(ctx context.Context, id string) (Removed, error) {
	var out Removed
	size, err := db.SessionSize(ctx, id)
	if err != nil {
		return out, fmt.Errorf("delete session %s: %w", id, err)
	}
	out.Size = size
	if out.Rows, err = db.removeRows(ctx, id); err != nil {
		return Removed{}, fmt.Errorf("delete session %s: %w", id, err)
	}
	err = db.tx(ctx, func(tx *sql.Tx) error {
		images, err := queryStrings(ctx, tx, `SELECT hash FROM blob_refs WHERE session_id = ?`, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM rules WHERE scope = 'session' AND scope_id = ?`, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("session %q: %w", id, ErrNotFound)
		}
		for _, h := range images {
			res, err := tx.ExecContext(ctx, `DELETE FROM blobs WHERE hash = ? AND NOT EXISTS (SELECT 1 FROM blob_refs WHERE hash = ?)`, h, h)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			out.Images += int(n)
		}
		return nil
	})
	if err != nil {
		return Removed{}, fmt.Errorf("delete session %s: %w", id, err)
	}
	return out, nil
}

// ToolOutput returns the content of the tool result at row seq of the session: what the window
// pages through when a result is too big to send whole. ErrNotFound when that row is not a
// tool result.
func (db *DB) ToolOutput(ctx context.Context, sessionID string, seq int64) (string, error) {
	var content sql.NullString
	err := db.sql.QueryRowContext(ctx, `SELECT json_extract(payload, '$.content') FROM chunks
		WHERE session_id = ? AND seq = ? AND kind = 'tool_result'`, sessionID, seq).Scan(&content)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("row %d of session %s: %w: no tool result there", seq, sessionID, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("row %d of session %s: %w", seq, sessionID, classify(err))
	}
	return content.String, nil
}

// Batches of removeRows: each transaction deletes batch rows, halved after a batch that held
// the write lock longer than slowBatch and doubled after one much shorter, so rows of big tool
// outputs (whose search index entries cost most to delete) go in smaller batches.
const (
	firstBatch = 256
	maxBatch   = 4096
	slowBatch  = 40 * time.Millisecond
)

// removeRows deletes the session's rows, oldest first, each batch in its own transaction, and
// returns how many went. Deleting every row explicitly (not by the sessions cascade) lets the
// search index's delete trigger see each row.
func (db *DB) removeRows(ctx context.Context, id string) (int64, error) {
	var gone int64
	for batch := int64(firstBatch); ; {
		t0 := time.Now()
		var n int64
		err := db.tx(ctx, func(tx *sql.Tx) error {
			// Seqs are gap-free from the first: the first batch seqs are the batch oldest rows.
			res, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE session_id = ?
				AND seq < (SELECT min(seq) FROM chunks WHERE session_id = ?) + ?`, id, id, batch)
			if err == nil {
				n, err = res.RowsAffected()
			}
			return err
		})
		if err != nil {
			return gone, err
		}
		if gone += n; n == 0 {
			return gone, nil
		}
		switch took := time.Since(t0); {
		case took > slowBatch && batch > 1:
			batch /= 2
		case took < slowBatch/4 && batch < maxBatch:
			batch *= 2
		}
		db.letWritersIn()
	}
}

// letWritersIn waits (a while at most) until no other writer of this process waits for the
// write lock. A writer waiting sleeps in SQLite's busy handler and tries again only now and
// then: without the pause, the next batch would take the lock back first, every time.
func (db *DB) letWritersIn() {
	for deadline := time.Now().Add(250 * time.Millisecond); db.waiting.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}
