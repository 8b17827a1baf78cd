package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"

	"github.com/loopdesk/loopdesk/backend/loop/core"
)

// ImageRef is an image of a user row: the blob it is (by hash) and what the person saw.
// Excluded marks an image a provider refused: it stays in the journal and the window, and
// requests leave it out (never deleted). The core's type: one type from the row to the core.
type ImageRef = core.ImageRef

// Blob is one stored image.
type Blob struct {
	Hash   string
	MIME   string
	Width  int
	Height int
	Data   []byte
}

var hexHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

// PutBlob stores data once under its sha256 (a second put of the same bytes is a no-op) and
// returns the hash. The caller has checked what data is (backend/images.Check).
func (db *DB) PutBlob(ctx context.Context, b Blob) (string, error) {
	if len(b.Data) == 0 || b.MIME == "" || b.Width <= 0 || b.Height <= 0 {
		return "", fmt.Errorf("%w: a blob needs bytes, a type and a size", ErrInvalid)
	}
	sum := sha256.Sum256(b.Data)
	hash := hex.EncodeToString(sum[:])
	err := db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO blobs(hash, mime, width, height, data, created_at) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT(hash) DO NOTHING`, hash, b.MIME, b.Width, b.Height, b.Data, db.nowMS())
		return err
	})
	if err != nil {
		return "", fmt.Errorf("store blob: %w", classify(err))
	}
	return hash, nil
}

// GetBlob returns the blob stored under hash, or an error wrapping ErrNotFound.
func (db *DB) GetBlob(ctx context.Context, hash string) (Blob, error) {
	b := Blob{Hash: hash}
	err := db.sql.QueryRowContext(ctx, `SELECT mime, width, height, data FROM blobs WHERE hash = ?`, hash).
		Scan(&b.MIME, &b.Width, &b.Height, &b.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return Blob{}, fmt.Errorf("blob %s: %w", hash, ErrNotFound)
	}
	if err != nil {
		return Blob{}, fmt.Errorf("blob %s: %w", hash, classify(err))
	}
	return b, nil
}

// checkImages refuses a user row naming an image that is not stored: a row never points at
// nothing.
func checkImages(ctx context.Context, tx execer, v any) error {
	u, ok := v.(*UserPayload)
	if !ok {
		return nil
	}
	for _, im := range u.Images {
		if !hexHash.MatchString(im.Hash) {
			return fmt.Errorf("%w: image hash %q", ErrInvalid, im.Hash)
		}
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM blobs WHERE hash = ?`, im.Hash).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: image %s is not stored", ErrInvalid, im.Hash)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
