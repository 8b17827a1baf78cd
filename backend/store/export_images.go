package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// exportImage is one image a session's rows name, carried in its export (type "image") so
// that images survive export and import.
type exportImage struct {
	Type   string `json:"type"` // "image"
	Hash   string `json:"hash"`
	MIME   string `json:"mime"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Data   []byte `json:"data"` // base64 in JSON
}

// exportImages writes each image the session's user rows name, once.
func exportImages(ctx context.Context, tx execer, id string, emit func(any) error) error {
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT b.hash, b.mime, b.width, b.height, b.data
		FROM chunks c, json_each(c.payload, '$.images') AS i JOIN blobs b ON b.hash = json_extract(i.value, '$.hash')
		WHERE c.session_id = ? AND c.kind = 'user' ORDER BY b.hash`, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		im := exportImage{Type: "image"}
		if err := rows.Scan(&im.Hash, &im.MIME, &im.Width, &im.Height, &im.Data); err != nil {
			return err
		}
		if err := emit(im); err != nil {
			return err
		}
	}
	return rows.Err()
}

// importImages stores the image lines of an export (each checked against its hash) and
// returns the other extra lines for ImportOptions.Extra.
func importImages(ctx context.Context, tx execer, lines []json.RawMessage, now int64) ([]json.RawMessage, error) {
	var rest []json.RawMessage
	for _, l := range lines {
		var im exportImage
		if err := json.Unmarshal(l, &im); err != nil || im.Type != "image" {
			rest = append(rest, l)
			continue
		}
		sum := sha256.Sum256(im.Data)
		if hex.EncodeToString(sum[:]) != im.Hash || im.MIME == "" || im.Width <= 0 || im.Height <= 0 {
			return nil, fmt.Errorf("%w: image %s: its data does not match its hash, or it has no type or size", ErrBadImport, im.Hash)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO blobs(hash, mime, width, height, data, created_at) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT(hash) DO NOTHING`, im.Hash, im.MIME, im.Width, im.Height, im.Data, now); err != nil {
			return nil, err
		}
	}
	return rest, nil
}
