package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// The session list a page at a time: the window shows the most recent sessions first and
// reads more as the person scrolls, so starting with a journal of thousands of sessions reads
// a page of them, and the project groups' sizes come from a count, not from every session.

// ProjectCount is how many sessions a project holds in the list (archived or not, as asked),
// and when the most recent of them was last updated (the list orders projects by it).
type ProjectCount struct {
	Project   string `json:"project"`
	Sessions  int    `json:"sessions"`
	UpdatedAt int64  `json:"updated_at_ms"`
}

// ListPage is one page of the session list: Next continues it ("" after the last page).
type ListPage struct {
	Sessions []Session `json:"sessions"`
	Next     string    `json:"next"`
}

// ListSessionsPage returns up to limit of the sessions f keeps, most recently updated first,
// from after (a ListPage.Next; "" for the first page). A cursor that is not one is ErrInvalid.
func (db *DB) ListSessionsPage(ctx context.Context, f ListFilter, after string, limit int) (ListPage, error) {
	if limit <= 0 {
		return ListPage{}, fmt.Errorf("list sessions: %w: a page holds at least one session", ErrInvalid)
	}
	where, args := f.where()
	q := `SELECT ` + sessionCols + `, updated_at, rowid FROM sessions WHERE ` + where
	if after != "" {
		at, rowid, err := parseCursor(after)
		if err != nil {
			return ListPage{}, fmt.Errorf("list sessions: %w: %q is not where a page ended", ErrInvalid, after)
		}
		q += ` AND (updated_at < ? OR updated_at = ? AND rowid < ?)`
		args = append(args, at, at, rowid)
	}
	rows, err := db.sql.QueryContext(ctx, q+` ORDER BY updated_at DESC, rowid DESC LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return ListPage{}, fmt.Errorf("list sessions: %w", classify(err))
	}
	defer rows.Close()
	out := ListPage{Sessions: []Session{}}
	var cursor string
	for rows.Next() {
		var s Session
		var created, updated, at, rowid int64
		if err := rows.Scan(&s.ID, &s.Title, &s.Workspace, &s.Model, &s.ParentID, &s.ForkSeq, &created, &updated, &s.Provider, &s.ParentCallID,
			&s.Project, &s.Archived, &at, &rowid); err != nil {
			return ListPage{}, fmt.Errorf("list sessions: %w", err)
		}
		if len(out.Sessions) == limit {
			out.Next = cursor
			break
		}
		s.CreatedAt, s.UpdatedAt = fromMS(created), fromMS(updated)
		out.Sessions, cursor = append(out.Sessions, s), fmt.Sprintf("%d:%d", at, rowid)
	}
	if err := rows.Err(); err != nil {
		return ListPage{}, fmt.Errorf("list sessions: %w", classify(err))
	}
	return out, nil
}

func parseCursor(c string) (at, rowid int64, err error) {
	a, r, ok := strings.Cut(c, ":")
	if !ok {
		return 0, 0, ErrInvalid
	}
	if at, err = strconv.ParseInt(a, 10, 64); err == nil {
		rowid, err = strconv.ParseInt(r, 10, 64)
	}
	return at, rowid, err
}

// ProjectCounts returns each project's number of sessions (archived ones when archived),
// the most recently updated project first.
func (db *DB) ProjectCounts(ctx context.Context, archived bool) ([]ProjectCount, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT project, count(*), max(updated_at) FROM sessions
		WHERE archived = ? AND project <> '' GROUP BY project ORDER BY max(updated_at) DESC, project`, archived)
	if err != nil {
		return nil, fmt.Errorf("count projects: %w", classify(err))
	}
	defer rows.Close()
	out := []ProjectCount{}
	for rows.Next() {
		var p ProjectCount
		if err := rows.Scan(&p.Project, &p.Sessions, &p.UpdatedAt); err != nil {
			return nil, fmt.Errorf("count projects: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// CountSessions is how many sessions f keeps.
func (db *DB) CountSessions(ctx context.Context, f ListFilter) (int, error) {
	where, args := f.where()
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE `+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count sessions: %w", classify(err))
	}
	return n, nil
}

// where is the condition on sessions that keeps what f keeps, with its arguments.
func (f ListFilter) where() (string, []any) {
	q, args := `1`, []any{}
	if !f.All {
		q, args = q+` AND archived = ?`, append(args, f.Archived)
	}
	if f.Project != "" {
		q, args = q+` AND project = ?`, append(args, f.Project)
	}
	return q, args
}
