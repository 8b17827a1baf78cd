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
// already there, chunk by chunk (a chunk already stored is not compressed
// or written again).
func putBlob(ctx context.Context, tx execer, sha string, data []byte) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM cp_blobs WHERE sha256 = ?`, sha).Scan(&one)
	if err == nil {
		return nil
	}
	if err != sql.ErrNoRows {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO cp_blobs(sha256, size) VALUES (?, ?)`, sha, len(data)); err != nil {
		return err
	}
	for i, c := range chunks(data) {
		sum := sha256.Sum256(c)
		csha := hex.EncodeToString(sum[:])
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM cp_chunks WHERE sha256 = ?`, csha).Scan(&one)
		if err == sql.ErrNoRows {
			z, err := deflate(c)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO cp_chunks(sha256, data) VALUES (?, ?)`, csha, z); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO cp_blob_chunks(blob, ord, chunk) VALUES (?, ?, ?)`, sha, i, csha); err != nil {
			return err
		}
	}
	return nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
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

func inflate(z []byte, max int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), max+1))
}

// getBlob returns the content with hash sha, or ErrNoContent. The content
// is checked against its hash, so a damaged database never writes wrong
// bytes into the folder.
func getBlob(ctx context.Context, q queryer, sha string, max int64) ([]byte, error) {
	rows, err := q.QueryContext(ctx, `SELECT c.data FROM cp_blob_chunks b JOIN cp_chunks c ON c.sha256 = b.chunk
		WHERE b.blob = ? ORDER BY b.ord`, sha)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var data []byte
	for rows.Next() {
		var z []byte
		if err := rows.Scan(&z); err != nil {
			return nil, err
		}
		c, err := inflate(z, max)
		if err != nil {
			return nil, fmt.Errorf("blob %s: %w", short(sha), err)
		}
		data = append(data, c...)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if data == nil {
		var size int64
		if err := q.QueryRowContext(ctx, `SELECT size FROM cp_blobs WHERE sha256 = ?`, sha).Scan(&size); err != nil {
			return nil, fmt.Errorf("blob %s: %w", short(sha), ErrNoContent)
		}
		data = []byte{}
	}
	if err := checkHash(data, sha); err != nil {
		return nil, err
	}
	return data, nil
}

func checkHash(data []byte, sha string) error {
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != sha {
		return fmt.Errorf("blob %s: %w: content does not match its hash", short(sha), ErrCorrupt)
	}
	return nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
