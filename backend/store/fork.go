package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
)

// ForkKind is what a fork is for. Its title says so, so that versions and forks of one
// session can be told apart in the list and in search hits, until the person renames it.
type ForkKind string

// Fork kinds.
const (
	ForkAtRow       ForkKind = "fork"        // a fork at a row the person chose: "… (fork at #N)"
	ForkEdited      ForkKind = "edited"      // edit and resend of a message of the person
	ForkRegenerated ForkKind = "regenerated" // a new version of a reply of the model
)

// forkSuffix matches the marks ForkTitle adds, so a version of a version says what it is once.
var forkSuffix = regexp.MustCompile(`\s+\((?:edited|regenerated|fork|fork at #\d+)\)$`)

// ForkTitle is the title of a fork of a session titled parent, made at seq (the last row the
// fork keeps). An empty parent title stays empty: the fork's first message names it.
func ForkTitle(parent string, kind ForkKind, seq int64) string {
	base := parent
	for forkSuffix.MatchString(base) {
		base = forkSuffix.ReplaceAllString(base, "")
	}
	if base == "" {
		return parent
	}
	switch kind {
	case ForkEdited, ForkRegenerated:
		return fmt.Sprintf("%s (%s)", base, kind)
	}
	return fmt.Sprintf("%s (fork at #%d)", base, seq)
}

// Fork creates a new session holding copies of the rows 1..seq of session id
// (times and run ids kept), with ParentID = id and ForkSeq = seq. The parent
// is never modified; its session-scoped approval rules are copied too. A
// fork taken between a tool call and its result gets, after the copied rows,
// an error tool_result starting "interrupted" for each unanswered call, so
// the fork is valid for the next request (the model sees the call did not
// run and may make it again, through approval again). seq outside 1..last
// is ErrSeqOutOfRange.
func (db *DB) Fork(ctx context.Context, id string, seq int64) (Session, error) {
	return db.fork(ctx, id, seq, 1, ForkAtRow)
}

// ForkBefore creates a fork holding the rows before seq (1..seq-1; none when seq is 1), with
// ForkSeq = seq-1: "edit and resend" of the person's message at seq branches there, so the
// first message of a session can be edited too. kind names the version in its title
// (ForkTitle). seq outside 1..last+1 is ErrSeqOutOfRange.
func (db *DB) ForkBefore(ctx context.Context, id string, seq int64, kind ForkKind) (Session, error) {
	return db.fork(ctx, id, seq-1, 0, kind)
}

// fork is Fork with the lowest fork point allowed (0: a fork with no rows) and its kind.
func (db *DB) fork(ctx context.Context, id string, seq, lowest int64, kind ForkKind) (Session, error) {
	var child Session
	err := db.tx(ctx, func(tx *sql.Tx) error {
		parent, err := scanSession(tx.QueryRowContext(ctx, `SELECT `+sessionCols+` FROM sessions WHERE id = ?`, id))
		if err == sql.ErrNoRows {
			return fmt.Errorf("session %q: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		last, _, err := sessionTail(ctx, tx, id)
		if err != nil {
			return err
		}
		if seq < lowest || seq > last {
			return fmt.Errorf("%w: seq %d, session has rows 1..%d", ErrSeqOutOfRange, seq, last)
		}
		pending, err := pendingAt(ctx, tx, id, seq)
		if err != nil {
			return err
		}
		if pending == nil {
			pending = []pendingCall{}
		}
		pj, _ := json.Marshal(pending)
		child, err = db.createSession(ctx, tx, Session{
			Title: ForkTitle(parent.Title, kind, seq), Workspace: parent.Workspace, Model: parent.Model, Provider: parent.Provider,
			ParentID: id, ForkSeq: seq, Project: parent.Project,
		}, string(pj), seq)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO chunks(session_id, seq, kind, payload, run_id, created_at)
			SELECT ?, seq, kind, payload, run_id, created_at FROM chunks WHERE session_id = ? AND seq <= ? ORDER BY seq`,
			child.ID, id, seq); err != nil {
			return err
		}
		// A version (an edit, a regeneration) runs as its parent did: same approval mode and budgets.
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET approve = p.approve, budgets = p.budgets
			FROM (SELECT approve, budgets FROM sessions WHERE id = ?) AS p WHERE id = ?`, id, child.ID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO rules(id, tool, pattern, effect, scope, scope_id, created_at)
			SELECT lower(hex(randomblob(12))), tool, pattern, effect, scope, ?, created_at FROM rules
			WHERE scope = 'session' AND scope_id = ?`, child.ID, id); err != nil {
			return err
		}
		if _, err = db.answerPending(ctx, tx, child.ID, "",
			"interrupted: the session was forked before this tool call returned a result; it did not run in this fork", db.nowMS()); err != nil {
			return err
		}
		return indexBacklog(ctx, tx) // a bulk copy: indexed in its own commit, as a search would
	})
	if err != nil {
		return Session{}, fmt.Errorf("fork session %s at %d: %w", id, seq, err)
	}
	return child, nil
}

// Family returns the sessions joined to id by forks (not by task calls): its fork ancestors
// and every fork below the oldest of them, id included, oldest first. What a version
// switcher needs, read without listing every session. ErrNotFound for no such session.
func (db *DB) Family(ctx context.Context, id string) ([]Session, error) {
	rows, err := db.sql.QueryContext(ctx, `WITH RECURSIVE
		up(id, parent_id, parent_call_id) AS (
			SELECT id, parent_id, parent_call_id FROM sessions WHERE id = ?1
			UNION SELECT s.id, s.parent_id, s.parent_call_id FROM sessions s JOIN up ON up.parent_call_id = '' AND s.id = up.parent_id),
		down(id) AS (
			SELECT id FROM up
			UNION SELECT s.id FROM sessions s JOIN down ON s.parent_id = down.id AND s.parent_call_id = '')
		SELECT `+sessionCols+` FROM sessions WHERE id IN (SELECT id FROM down) ORDER BY created_at, rowid`, id)
	if err != nil {
		return nil, fmt.Errorf("family of session %s: %w", id, classify(err))
	}
	out, err := scanSessions(rows)
	if err != nil {
		return nil, fmt.Errorf("family of session %s: %w", id, classify(err))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	return out, nil
}
