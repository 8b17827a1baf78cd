package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loopdesk/loopdesk/backend/loop/core"
)

// MemoryScope says where a memory applies: one folder (project) or every folder (personal).
type MemoryScope string

// Memory scopes.
const (
	MemoryProject  MemoryScope = "project"
	MemoryPersonal MemoryScope = "personal"
)

// Valid reports whether s is one of the scopes.
func (s MemoryScope) Valid() bool { return s == MemoryProject || s == MemoryPersonal }

// MaxMemoryText bounds one memory's text: a memory is a sentence or a short paragraph, and
// every one is carried by every later run of its folder.
const MaxMemoryText = 4096

// MemorySource is the row that proposed a memory: the assistant row of the remember call.
type MemorySource struct {
	SessionID string `json:"session_id"`
	Seq       int64  `json:"seq"`
}

// Memory is something the person approved for later runs to carry (docs/memory.md). Source is
// nil for one the person wrote or accepted from an import (Origin then names the file).
type Memory struct {
	ID        string        `json:"id"`
	Scope     MemoryScope   `json:"scope"`
	Text      string        `json:"text"`
	Workspace string        `json:"workspace"`
	Source    *MemorySource `json:"source"`
	CreatedAt time.Time     `json:"created_at"`
	UpdatedAt time.Time     `json:"updated_at"`
	// CallID is the remember call that proposed it, Origin the file it was imported from.
	CallID string `json:"-"`
	Origin string `json:"-"`
}

// NewMemory is what AddMemory needs. Workspace is required for a project memory and must be
// empty for a personal one.
type NewMemory struct {
	Scope     MemoryScope
	Text      string
	Workspace string
	Source    *MemorySource
	CallID    string
	Origin    string
}

func checkMemory(scope MemoryScope, text, workspace string) error {
	switch {
	case !scope.Valid():
		return fmt.Errorf("%w: scope %q (want project or personal)", ErrInvalid, scope)
	case strings.TrimSpace(text) == "":
		return fmt.Errorf("%w: a memory needs text", ErrInvalid)
	case len(text) > MaxMemoryText:
		return fmt.Errorf("%w: a memory is at most %d bytes (this one has %d)", ErrInvalid, MaxMemoryText, len(text))
	case scope == MemoryProject && workspace == "":
		return fmt.Errorf("%w: a project memory needs its folder", ErrInvalid)
	case scope == MemoryPersonal && workspace != "":
		return fmt.Errorf("%w: a personal memory applies to every folder, not to %s", ErrInvalid, workspace)
	}
	return nil
}

// AddMemory stores a memory. ErrInvalid for an unknown scope, empty or oversized text, or a
// workspace that does not fit the scope.
func (db *DB) AddMemory(ctx context.Context, n NewMemory) (Memory, error) {
	n.Text = strings.TrimSpace(n.Text)
	if err := checkMemory(n.Scope, n.Text, n.Workspace); err != nil {
		return Memory{}, fmt.Errorf("add memory: %w", err)
	}
	var m Memory
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		m, err = insertMemory(ctx, tx, db.nowMS(), n)
		return err
	})
	if err != nil {
		return Memory{}, fmt.Errorf("add memory: %w", err)
	}
	return m, nil
}

func insertMemory(ctx context.Context, tx *sql.Tx, now int64, n NewMemory) (Memory, error) {
	m := Memory{ID: newID(), Scope: n.Scope, Text: n.Text, Workspace: n.Workspace, Source: n.Source,
		CreatedAt: fromMS(now), UpdatedAt: fromMS(now), CallID: n.CallID, Origin: n.Origin}
	var session any
	var seq any
	if n.Source != nil {
		session, seq = n.Source.SessionID, n.Source.Seq
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO memories(id, scope, workspace, text, source_session, source_seq,
		source_call, origin, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.Scope, m.Workspace, m.Text, session, seq, m.CallID, m.Origin, now, now)
	return m, err
}

// EditMemory replaces a memory's text (ErrNotFound when there is no such memory). Rows that
// carried the old text keep it: a stored row never changes.
func (db *DB) EditMemory(ctx context.Context, id, text string) (Memory, error) {
	text = strings.TrimSpace(text)
	var m Memory
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if m, err = memoryByID(ctx, tx, id); err != nil {
			return err
		}
		if err := checkMemory(m.Scope, text, m.Workspace); err != nil {
			return err
		}
		now := db.nowMS()
		m.Text, m.UpdatedAt = text, fromMS(now)
		_, err = tx.ExecContext(ctx, `UPDATE memories SET text = ?, updated_at = ? WHERE id = ?`, text, now, id)
		return err
	})
	if err != nil {
		return Memory{}, fmt.Errorf("edit memory %s: %w", id, err)
	}
	return m, nil
}

// RemoveMemory deletes a memory (ErrNotFound when there is none with that id).
func (db *DB) RemoveMemory(ctx context.Context, id string) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return fmt.Errorf("memory %q: %w", id, ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("remove memory %s: %w", id, err)
	}
	return nil
}

// MemoryByID returns one memory, or an error wrapping ErrNotFound.
func (db *DB) MemoryByID(ctx context.Context, id string) (Memory, error) {
	var m Memory
	err := db.read(ctx, func(q execer) error {
		var err error
		m, err = memoryByID(ctx, q, id)
		return err
	})
	if err != nil {
		return Memory{}, fmt.Errorf("memory %s: %w", id, err)
	}
	return m, nil
}

const memoryColumns = `id, scope, workspace, text, source_session, source_seq, source_call, origin, created_at, updated_at`

func memoryByID(ctx context.Context, q execer, id string) (Memory, error) {
	ms, err := queryMemories(ctx, q, `WHERE id = ?`, id)
	if err != nil {
		return Memory{}, err
	}
	if len(ms) == 0 {
		return Memory{}, fmt.Errorf("memory %q: %w", id, ErrNotFound)
	}
	return ms[0], nil
}

// MemoriesFor returns the memories in force for a folder: its project memories and the
// person's personal ones, oldest first (the order a run carries them in). An empty workspace
// gives the personal ones only.
func (db *DB) MemoriesFor(ctx context.Context, workspace string) ([]Memory, error) {
	var out []Memory
	err := db.read(ctx, func(q execer) error {
		var err error
		out, err = queryMemories(ctx, q, `WHERE scope = 'personal' OR (scope = 'project' AND workspace = ?1 AND ?1 <> '')`, workspace)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("memories of %s: %w", workspace, err)
	}
	return out, nil
}

// AllMemories returns every memory of every folder, oldest first (Settings → Memory).
func (db *DB) AllMemories(ctx context.Context) ([]Memory, error) {
	var out []Memory
	err := db.read(ctx, func(q execer) error {
		var err error
		out, err = queryMemories(ctx, q, "")
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("memories: %w", err)
	}
	return out, nil
}

func queryMemories(ctx context.Context, q execer, where string, args ...any) ([]Memory, error) {
	// Oldest first is the order they were added in: rowid, not created_at, which a wall
	// clock stepping back (a virtual machine's, NTP's) can put out of order.
	rows, err := q.QueryContext(ctx, `SELECT `+memoryColumns+` FROM memories `+where+` ORDER BY rowid`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Memory{}
	for rows.Next() {
		var m Memory
		var session sql.NullString
		var seq sql.NullInt64
		var created, updated int64
		if err := rows.Scan(&m.ID, &m.Scope, &m.Workspace, &m.Text, &session, &seq, &m.CallID, &m.Origin, &created, &updated); err != nil {
			return nil, err
		}
		if session.Valid {
			m.Source = &MemorySource{SessionID: session.String, Seq: seq.Int64}
		}
		m.CreatedAt, m.UpdatedAt = fromMS(created), fromMS(updated)
		out = append(out, m)
	}
	return out, rows.Err()
}

// MemoryProposal is an entry read from a file people already keep, waiting for the person to
// accept it (it becomes a memory) or reject it (it is gone). Origin names the file.
type MemoryProposal struct {
	ID        string      `json:"id"`
	Scope     MemoryScope `json:"scope"`
	Text      string      `json:"text"`
	Workspace string      `json:"workspace"`
	Origin    string      `json:"origin"`
	CreatedAt time.Time   `json:"created_at"`
}

// ProposeMemories stores proposals, all or none; each is checked as a memory would be.
func (db *DB) ProposeMemories(ctx context.Context, ps []MemoryProposal) ([]MemoryProposal, error) {
	out := make([]MemoryProposal, 0, len(ps))
	err := db.tx(ctx, func(tx *sql.Tx) error {
		for _, p := range ps {
			p.Text = strings.TrimSpace(p.Text)
			if err := checkMemory(p.Scope, p.Text, p.Workspace); err != nil {
				return err
			}
			now := db.nowMS()
			p.ID, p.CreatedAt = newID(), fromMS(now)
			if _, err := tx.ExecContext(ctx, `INSERT INTO memory_proposals(id, scope, workspace, text, origin, created_at)
				VALUES (?, ?, ?, ?, ?, ?)`, p.ID, p.Scope, p.Workspace, p.Text, p.Origin, now); err != nil {
				return err
			}
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("propose memories: %w", err)
	}
	return out, nil
}

// MemoryProposals lists the proposals waiting, oldest first.
func (db *DB) MemoryProposals(ctx context.Context) ([]MemoryProposal, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, scope, workspace, text, origin, created_at FROM memory_proposals
		ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("memory proposals: %w", classify(err))
	}
	defer rows.Close()
	out := []MemoryProposal{}
	for rows.Next() {
		var p MemoryProposal
		var at int64
		if err := rows.Scan(&p.ID, &p.Scope, &p.Workspace, &p.Text, &p.Origin, &at); err != nil {
			return nil, fmt.Errorf("memory proposals: %w", err)
		}
		p.CreatedAt = fromMS(at)
		out = append(out, p)
	}
	return out, rows.Err()
}

// AcceptMemoryProposals makes each proposal a memory (no source: the person accepted it; its
// origin kept) and removes it, all or none. An unknown id is ErrNotFound.
func (db *DB) AcceptMemoryProposals(ctx context.Context, ids []string) ([]Memory, error) {
	var out []Memory
	err := db.tx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			var p MemoryProposal
			err := tx.QueryRowContext(ctx, `DELETE FROM memory_proposals WHERE id = ? RETURNING scope, workspace, text, origin`, id).
				Scan(&p.Scope, &p.Workspace, &p.Text, &p.Origin)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("proposal %q: %w", id, ErrNotFound)
			}
			if err != nil {
				return err
			}
			m, err := insertMemory(ctx, tx, db.nowMS(), NewMemory{Scope: p.Scope, Text: p.Text, Workspace: p.Workspace, Origin: p.Origin})
			if err != nil {
				return err
			}
			out = append(out, m)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("accept memory proposals: %w", err)
	}
	return out, nil
}

// RejectMemoryProposals removes proposals, all or none. An unknown id is ErrNotFound.
func (db *DB) RejectMemoryProposals(ctx context.Context, ids []string) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			res, err := tx.ExecContext(ctx, `DELETE FROM memory_proposals WHERE id = ?`, id)
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k == 0 {
				return fmt.Errorf("proposal %q: %w", id, ErrNotFound)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reject memory proposals: %w", err)
	}
	return nil
}

// LastMemoryNote returns the memories the session's last memory note carried (its rows, a
// fork's copied ones included), and whether it has one.
func (db *DB) LastMemoryNote(ctx context.Context, sessionID string) ([]core.MemoryRef, bool, error) {
	var payload string
	err := db.sql.QueryRowContext(ctx, `SELECT payload FROM chunks WHERE session_id = ? AND kind = 'note'
		AND json_extract(payload, '$.source') = ? ORDER BY seq DESC LIMIT 1`, sessionID, core.NoteSourceMemory).Scan(&payload)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("the last memory note of session %s: %w", sessionID, classify(err))
	}
	var p NotePayload
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		return nil, false, fmt.Errorf("the last memory note of session %s: %w", sessionID, err)
	}
	return p.Memories, true, nil
}

// MemoryRefs are ms as a note carries them.
func MemoryRefs(ms []Memory) []core.MemoryRef {
	out := make([]core.MemoryRef, len(ms))
	for i, m := range ms {
		out[i] = core.MemoryRef{ID: m.ID, Scope: string(m.Scope), Text: m.Text}
	}
	return out
}
