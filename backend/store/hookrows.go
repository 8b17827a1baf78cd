package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// HookPayload (KindHook) is one run of one user hook (backend/hooks), so a person can see why
// a call was blocked or a run went on. Decision is what the hook decided ("allow", "deny",
// "ask", "block", "continue", or "" when it said nothing); Reason is the reason it gave, or
// why it failed ("hook failed: <command>: <why>"). Stderr holds at most the first 4 KB.
// ExitCode is -1 when the hook did not exit by itself (timed out, could not start).
type HookPayload struct {
	Event      string `json:"event"`
	Matcher    string `json:"matcher,omitempty"`
	Command    string `json:"command"`
	Source     string `json:"source"`
	CallID     string `json:"call_id,omitempty"`
	Tool       string `json:"tool,omitempty"`
	ExitCode   int    `json:"exit_code"`
	DurationMS int64  `json:"duration_ms"`
	Decision   string `json:"decision"`
	Reason     string `json:"reason"`
	Stderr     string `json:"stderr"`
	// SystemMessage is the hook's message for the person (never sent to the model).
	SystemMessage string `json:"system_message,omitempty"`
	// Failed: the hook crashed, exited with an unexpected code or timed out.
	Failed bool `json:"failed,omitempty"`
}

// HookTrust is the person's trust in one folder's project hooks: the sha256 of the project
// hook configuration they trusted, and that configuration (to show what changed since).
type HookTrust struct {
	Workspace string    `json:"workspace"`
	SHA256    string    `json:"sha256"`
	Config    string    `json:"config"`
	TrustedAt time.Time `json:"trusted_at"`
}

// TrustHooks records that the person trusts workspace's project hooks whose configuration
// hashes to sha256 (replacing any earlier trust of that folder).
func (db *DB) TrustHooks(ctx context.Context, workspace, sha256, config string) (HookTrust, error) {
	if workspace == "" || len(sha256) != 64 {
		return HookTrust{}, fmt.Errorf("trust hooks: %w: a folder and a sha256 are required", ErrInvalid)
	}
	t := HookTrust{Workspace: workspace, SHA256: sha256, Config: config}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		now := db.nowMS()
		t.TrustedAt = fromMS(now)
		_, err := tx.ExecContext(ctx, `INSERT INTO hook_trust(workspace, sha256, config, trusted_at) VALUES (?, ?, ?, ?)
			ON CONFLICT(workspace) DO UPDATE SET sha256 = excluded.sha256, config = excluded.config,
			trusted_at = excluded.trusted_at`, workspace, sha256, config, now)
		return err
	})
	if err != nil {
		return HookTrust{}, fmt.Errorf("trust hooks of %s: %w", workspace, classify(err))
	}
	return t, nil
}

// HookTrustOf returns the trust recorded for workspace, or an error wrapping ErrNotFound.
func (db *DB) HookTrustOf(ctx context.Context, workspace string) (HookTrust, error) {
	t := HookTrust{Workspace: workspace}
	var at int64
	err := db.sql.QueryRowContext(ctx, `SELECT sha256, config, trusted_at FROM hook_trust WHERE workspace = ?`,
		workspace).Scan(&t.SHA256, &t.Config, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return HookTrust{}, fmt.Errorf("hook trust of %s: %w", workspace, ErrNotFound)
	}
	if err != nil {
		return HookTrust{}, fmt.Errorf("hook trust of %s: %w", workspace, classify(err))
	}
	t.TrustedAt = fromMS(at)
	return t, nil
}

// UntrustHooks forgets the trust in workspace's project hooks (no error when there was none).
func (db *DB) UntrustHooks(ctx context.Context, workspace string) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM hook_trust WHERE workspace = ?`, workspace)
		return err
	})
	if err != nil {
		return fmt.Errorf("untrust hooks of %s: %w", workspace, classify(err))
	}
	return nil
}

// HookRun is one stored hook row with where and when it ran (Settings → Hooks).
type HookRun struct {
	SessionID string      `json:"session_id"`
	Seq       int64       `json:"seq"`
	At        time.Time   `json:"at"`
	Hook      HookPayload `json:"hook"`
}

// RecentHookRuns returns the latest hook rows of the sessions in workspace, newest first.
func (db *DB) RecentHookRuns(ctx context.Context, workspace string, limit int) ([]HookRun, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT c.session_id, c.seq, c.created_at, c.payload FROM chunks c
		JOIN sessions s ON s.id = c.session_id
		WHERE c.kind = 'hook' AND s.workspace = ? ORDER BY c.created_at DESC, c.id DESC LIMIT ?`, workspace, limit)
	if err != nil {
		return nil, fmt.Errorf("recent hook runs: %w", classify(err))
	}
	defer rows.Close()
	out := []HookRun{}
	for rows.Next() {
		var r HookRun
		var at int64
		var payload string
		if err := rows.Scan(&r.SessionID, &r.Seq, &at, &payload); err != nil {
			return nil, fmt.Errorf("recent hook runs: %w", err)
		}
		if err := json.Unmarshal([]byte(payload), &r.Hook); err != nil {
			return nil, fmt.Errorf("recent hook runs: row %d: %w", r.Seq, err)
		}
		r.At = fromMS(at)
		out = append(out, r)
	}
	return out, rows.Err()
}
