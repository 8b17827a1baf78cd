package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loopdesk/loopdesk/backend/loop/core"
)

// QueuedMessage is a message the person sent while a run worked, waiting to be delivered:
// at the run's next tool boundary, or as the message of the session's next run. It is not a
// conversation row until delivered; the user row that delivers it names it (UserPayload.QueuedID)
// and Append removes it from the queue in the same transaction, so a crash can neither lose
// it nor deliver it twice. HookContext is what the message's UserPromptSubmit hooks added
// when it was queued (they run once per message): Append stores it as note rows right after
// the delivering row, so it survives a restart with the message and goes with Dequeue.
type QueuedMessage struct {
	ID          string    `json:"id"`
	Text        string    `json:"text"`
	QueuedAt    time.Time `json:"queued_at"`
	HookContext []string  `json:"hook_context,omitempty"`
}

// NewQueueID is a new queued message's id: "q" and 16 hex digits.
func NewQueueID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux
	return "q" + hex.EncodeToString(b[:])
}

// Enqueue stores m at the end of the session's queue. An unknown session is ErrNotFound.
func (db *DB) Enqueue(ctx context.Context, sessionID string, m QueuedMessage) error {
	if m.ID == "" || m.Text == "" {
		return fmt.Errorf("queue a message on session %s: %w: no id or text", sessionID, ErrInvalid)
	}
	hookContext, err := json.Marshal(orEmpty(m.HookContext))
	if err != nil {
		return fmt.Errorf("queue a message on session %s: %w", sessionID, err)
	}
	err = db.tx(ctx, func(tx *sql.Tx) error {
		if _, _, err := sessionTail(ctx, tx, sessionID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO queued_messages(id, session_id, pos, text, created_at, hook_context)
			VALUES (?, ?, (SELECT coalesce(max(pos), 0) + 1 FROM queued_messages WHERE session_id = ?), ?, ?, ?)`,
			m.ID, sessionID, sessionID, m.Text, m.QueuedAt.UnixMilli(), string(hookContext))
		return err
	})
	if err != nil {
		return fmt.Errorf("queue a message on session %s: %w", sessionID, err)
	}
	return nil
}

// Queued lists the session's queued messages in the order they were sent.
func (db *DB) Queued(ctx context.Context, sessionID string) ([]QueuedMessage, error) {
	out := []QueuedMessage{}
	err := db.read(ctx, func(tx execer) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, text, created_at, hook_context FROM queued_messages WHERE session_id = ? ORDER BY pos`, sessionID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m QueuedMessage
			var at int64
			var hookContext string
			if err := rows.Scan(&m.ID, &m.Text, &at, &hookContext); err != nil {
				return err
			}
			m.QueuedAt = fromMS(at)
			if err := json.Unmarshal([]byte(hookContext), &m.HookContext); err != nil {
				return fmt.Errorf("queued message %s: hook context: %w", m.ID, err)
			}
			if len(m.HookContext) == 0 {
				m.HookContext = nil
			}
			out = append(out, m)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("queued messages of session %s: %w", sessionID, err)
	}
	return out, nil
}

// Dequeue removes a queued message; it reports false when it was not queued (delivered or
// removed already).
func (db *DB) Dequeue(ctx context.Context, sessionID, id string) (bool, error) {
	var n int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM queued_messages WHERE id = ? AND session_id = ?`, id, sessionID)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return false, fmt.Errorf("remove queued message %s: %w", id, err)
	}
	return n > 0, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// delivered removes the queued message a user row delivers (Append, in the row's transaction).
func delivered(ctx context.Context, tx execer, sessionID string, v any) error {
	u, ok := v.(*UserPayload)
	if !ok || u.QueuedID == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM queued_messages WHERE id = ? AND session_id = ?`, u.QueuedID, sessionID)
	return err
}

// withHookContext adds, after each user row delivering a queued message, the notes its
// UserPromptSubmit hooks gave when it was queued (QueuedMessage.HookContext), as note rows
// in the transaction that removes the message (delivered): the model reads them right after
// the message, framed as Loopdesk's note, exactly as for a typed message, whether the message
// is delivered at a tool boundary, by "Send now" or with the next run after a restart.
func withHookContext(ctx context.Context, tx execer, sessionID string, chunks []NewChunk, ps []preparedRow) ([]NewChunk, []preparedRow, error) {
	outC, outP := make([]NewChunk, 0, len(chunks)), make([]preparedRow, 0, len(ps))
	for i, c := range chunks {
		outC, outP = append(outC, c), append(outP, ps[i])
		u, ok := ps[i].v.(*UserPayload)
		if !ok || u.QueuedID == "" {
			continue
		}
		var raw string
		err := tx.QueryRowContext(ctx, `SELECT hook_context FROM queued_messages WHERE id = ? AND session_id = ?`, u.QueuedID, sessionID).Scan(&raw)
		if errors.Is(err, sql.ErrNoRows) {
			continue // not queued (any more): nothing to add
		}
		var texts []string
		if err == nil {
			err = json.Unmarshal([]byte(raw), &texts)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("queued message %s: hook context: %w", u.QueuedID, err)
		}
		for _, text := range texts {
			note := NewChunk{Kind: KindNote, Payload: NotePayload{Source: core.NoteSourceHook, Text: text}}
			raw, v, err := canonical(note.Kind, note.Payload)
			if err != nil {
				return nil, nil, err
			}
			outC, outP = append(outC, note), append(outP, preparedRow{raw, v})
		}
	}
	return outC, outP, nil
}
