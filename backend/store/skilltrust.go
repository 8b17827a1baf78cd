package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// SkillTrust is the person's trust in one project skill file: the SKILL.md's path (absolute,
// symbolic links resolved) and the sha256 of the bytes they trusted.
type SkillTrust struct {
	Path      string    `json:"path"`
	SHA256    string    `json:"sha256"`
	TrustedAt time.Time `json:"trusted_at"`
}

// TrustSkill records that the person trusts the skill file at path whose bytes hash to sha256
// (replacing any earlier trust of that file).
func (db *DB) TrustSkill(ctx context.Context, path, sha256 string) (SkillTrust, error) {
	if path == "" || len(sha256) != 64 {
		return SkillTrust{}, fmt.Errorf("trust skill: %w: a path and a sha256 are required", ErrInvalid)
	}
	t := SkillTrust{Path: path, SHA256: sha256}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		now := db.nowMS()
		t.TrustedAt = fromMS(now)
		_, err := tx.ExecContext(ctx, `INSERT INTO skill_trust(path, sha256, trusted_at) VALUES (?, ?, ?)
			ON CONFLICT(path) DO UPDATE SET sha256 = excluded.sha256, trusted_at = excluded.trusted_at`,
			path, sha256, now)
		return err
	})
	if err != nil {
		return SkillTrust{}, fmt.Errorf("trust skill %s: %w", path, classify(err))
	}
	return t, nil
}

// SkillTrustOf returns the trust recorded for the skill file at path, or an error wrapping
// ErrNotFound.
func (db *DB) SkillTrustOf(ctx context.Context, path string) (SkillTrust, error) {
	t := SkillTrust{Path: path}
	var at int64
	err := db.sql.QueryRowContext(ctx, `SELECT sha256, trusted_at FROM skill_trust WHERE path = ?`, path).Scan(&t.SHA256, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return SkillTrust{}, fmt.Errorf("skill trust of %s: %w", path, ErrNotFound)
	}
	if err != nil {
		return SkillTrust{}, fmt.Errorf("skill trust of %s: %w", path, classify(err))
	}
	t.TrustedAt = fromMS(at)
	return t, nil
}

// UntrustSkill forgets the trust in the skill file at path (no error when there was none).
func (db *DB) UntrustSkill(ctx context.Context, path string) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM skill_trust WHERE path = ?`, path)
		return err
	})
	if err != nil {
		return fmt.Errorf("untrust skill %s: %w", path, classify(err))
	}
	return nil
}
