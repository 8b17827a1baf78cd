package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Session is one conversation. ParentID and ForkSeq are set on forks: the
// session started as a copy of ParentID's rows 1..ForkSeq. The parent may
// since have been deleted. A child session (started by a task call) has
// ParentID and ParentCallID, the id of the call that started it, and no rows
// of its parent; its ForkSeq is the parent's row holding that call (0 when the
// call was not stored), the row the lineage tree shows it under. Whatever
// treats ForkSeq as a fork point must check ParentCallID first.
type Session struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Workspace string `json:"workspace"`
	Model     string `json:"model"`
	// Provider names the provider (config.Providers) the session's next run uses with
	// Model; "" is the provider named "default" (sessions made before providers existed).
	Provider string `json:"provider"`
	ParentID string `json:"parent_id"`
	ForkSeq  int64  `json:"fork_seq"`
	// ParentCallID is set on child sessions only (json omits it elsewhere).
	ParentCallID string    `json:"parent_call_id,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	// Project is the one project the session belongs to ("" for none); Archived hides it from
	// the list (search and open still find it). See organise.go.
	Project  string `json:"project,omitempty"`
	Archived bool   `json:"archived,omitempty"`
}

// Source is how the session began, for its SessionStart hooks: new (no rows yet: lastSeq, the
// seq of its last row, is 0), fork (a fork with no row after those it copied) or resume.
func (s Session) Source(lastSeq int64) string {
	switch {
	case lastSeq == 0:
		return "new"
	case s.ParentID != "" && s.ParentCallID == "" && lastSeq <= s.ForkSeq:
		return "fork"
	}
	return "resume"
}

// NewSession is what CreateSession needs. An empty Title becomes "New session".
type NewSession struct {
	Title     string `json:"title"`
	Workspace string `json:"workspace"`
	Model     string `json:"model"`
	Provider  string `json:"provider"`
	// ParentID and ParentCallID make the session a child of the task call ParentCallID of
	// session ParentID (both or neither).
	ParentID     string `json:"parent_id,omitempty"`
	ParentCallID string `json:"parent_call_id,omitempty"`
}

const sessionCols = `id, title, workspace, model, parent_id, fork_seq, created_at, updated_at, provider, parent_call_id, project, archived`

type scanner interface{ Scan(...any) error }

func scanSession(r scanner) (Session, error) {
	var s Session
	var created, updated int64
	err := r.Scan(&s.ID, &s.Title, &s.Workspace, &s.Model, &s.ParentID, &s.ForkSeq, &created, &updated, &s.Provider, &s.ParentCallID, &s.Project, &s.Archived)
	s.CreatedAt, s.UpdatedAt = fromMS(created), fromMS(updated)
	return s, err
}

// CreateSession stores a new, empty session.
func (db *DB) CreateSession(ctx context.Context, n NewSession) (Session, error) {
	var s Session
	if (n.ParentID == "") != (n.ParentCallID == "") {
		return Session{}, fmt.Errorf("create session: %w: a child session needs both parent_id and parent_call_id", ErrInvalid)
	}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		at, err := callRow(ctx, tx, n.ParentID, n.ParentCallID)
		if err != nil {
			return err
		}
		s, err = db.createSession(ctx, tx, Session{Title: n.Title, Workspace: n.Workspace, Model: n.Model, Provider: n.Provider,
			ParentID: n.ParentID, ParentCallID: n.ParentCallID, ForkSeq: at}, "[]", 0)
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("create session: %w", err)
	}
	return s, nil
}

// createSession inserts s with a fresh id and times, keeping ParentID/ForkSeq.
func (db *DB) createSession(ctx context.Context, tx execer, s Session, pending string, lastSeq int64) (Session, error) {
	s.Title = strings.TrimSpace(s.Title)
	if s.Title == "" {
		s.Title = "New session"
	}
	s.ID = newID()
	s.Archived = false // a new session (a fork of an archived one too) shows in the list
	now := db.nowMS()
	s.CreatedAt, s.UpdatedAt = fromMS(now), fromMS(now)
	_, err := tx.ExecContext(ctx, `INSERT INTO sessions(`+sessionCols+`, last_seq, pending)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.Title, s.Workspace, s.Model, s.ParentID, s.ForkSeq, now, now, s.Provider, s.ParentCallID, s.Project, s.Archived, lastSeq, pending)
	return s, err
}

// GetSession returns the session or an error wrapping ErrNotFound.
func (db *DB) GetSession(ctx context.Context, id string) (Session, error) {
	s, err := scanSession(db.sql.QueryRowContext(ctx, `SELECT `+sessionCols+` FROM sessions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("get session %s: %w", id, classify(err))
	}
	return s, nil
}

// ListSessions returns every session, archived or not, most recently updated first.
func (db *DB) ListSessions(ctx context.Context) ([]Session, error) {
	return db.ListSessionsBy(ctx, ListFilter{All: true})
}

// RenameSession sets the title. An empty title is refused (ErrInvalid).
func (db *DB) RenameSession(ctx context.Context, id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" {
		return fmt.Errorf("rename session %s: %w: empty title", id, ErrInvalid)
	}
	return db.updateSession(ctx, "rename", id, `UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?`, title, db.nowMS(), id)
}

func (db *DB) updateSession(ctx context.Context, what, id, q string, args ...any) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("session %q: %w", id, ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s session %s: %w", what, id, err)
	}
	return nil
}

// DeleteSession removes the session with its rows, runs and session-scoped
// rules. Its forks keep their own copies of the rows and stay intact. See RemoveSession.
func (db *DB) DeleteSession(ctx context.Context, id string) error {
	_, err := db.RemoveSession(ctx, id)
	return err
}

// secretKey matches setting names that would hold a credential.
var secretKey = regexp.MustCompile(`(?i)(api[_.-]?key|secret|password|passwd|credential|bearer|auth[_.-]?token)`)

// GetSetting returns the value and whether it was set.
func (db *DB) GetSetting(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := db.sql.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("get setting %s: %w", key, classify(err))
	}
	return v, true, nil
}

// SetSetting stores a value. Names that look like they hold a secret (api
// key, token, password ...) are refused with ErrSecret: the key lives in the
// environment only.
func (db *DB) SetSetting(ctx context.Context, key, value string) error {
	return db.SetSettings(ctx, [][2]string{{key, value}})
}

// SetSettings stores several settings (name, value pairs) in one transaction: all of them
// or, on any error, none.
func (db *DB) SetSettings(ctx context.Context, kvs [][2]string) error {
	for _, kv := range kvs {
		if kv[0] == "" {
			return fmt.Errorf("set setting: %w: empty name", ErrInvalid)
		}
		if secretKey.MatchString(kv[0]) {
			return fmt.Errorf("set setting %s: %w", kv[0], ErrSecret)
		}
	}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		for _, kv := range kvs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO settings(key, value) VALUES (?, ?)
				ON CONFLICT(key) DO UPDATE SET value = excluded.value`, kv[0], kv[1]); err != nil {
				return fmt.Errorf("set setting %s: %w", kv[0], err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	return nil
}
