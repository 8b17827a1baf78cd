package checkpoint

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
)

// putBlob stores data under its sha256 unless a blob with that hash is
// already there (then it is not even compressed again).
func putBlob(ctx context.Context, tx *sql.Tx, sha string, data []byte) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM cp_blobs WHERE sha256 = ?`, sha).Scan(&one)
	if err == nil {
		return nil
	}
	if err != sql.ErrNoRows {
		return err
	}
	z, err := deflate(data)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO cp_blobs(sha256, size, data) VALUES (?, ?, ?)`, sha, len(data), z)
	return err
}

func deflate(data []byte) ([]byte, error) {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.DefaultCompression) // the level is valid
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// inflate decompresses a blob and checks it against its hash, so a damaged
// database or a forged import never writes wrong bytes into the folder.
func inflate(z []byte, sha string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), max+1))
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", short(sha), err)
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != sha {
		return nil, fmt.Errorf("blob %s: %w: content does not match its hash", short(sha), ErrCorrupt)
	}
	return data, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// getBlob returns the content with hash sha, or ErrNoContent.
func getBlob(ctx context.Context, q querier, sha string, max int64) ([]byte, error) {
	var z []byte
	err := q.QueryRowContext(ctx, `SELECT data FROM cp_blobs WHERE sha256 = ?`, sha).Scan(&z)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("blob %s: %w", short(sha), ErrNoContent)
	}
	if err != nil {
		return nil, err
	}
	return inflate(z, sha, max)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
