package transcript

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
)

// BlobReader gives an image's bytes by hash (*store.DB).
type BlobReader interface {
	GetBlob(ctx context.Context, hash string) (store.Blob, error)
}

// ImagesNextTo is the Options that write each image into a folder beside the transcript at
// mdPath ("session.md" → "session_images/<hash>.<ext>") and link it from the transcript.
// An image already there (the same hash) is not written again.
func ImagesNextTo(ctx context.Context, db BlobReader, mdPath string) Options {
	dir := strings.TrimSuffix(mdPath, filepath.Ext(mdPath)) + "_images"
	rel := filepath.Base(dir)
	return Options{SaveImage: func(ref store.ImageRef) (string, error) {
		name := ref.Hash + extension(ref.MIME)
		file := filepath.Join(dir, name)
		if _, err := os.Stat(file); err == nil {
			return rel + "/" + name, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		b, err := db.GetBlob(ctx, ref.Hash)
		if err != nil {
			return "", err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(file, b.Data, 0o644); err != nil {
			return "", fmt.Errorf("write %s: %w", file, err)
		}
		return rel + "/" + name, nil
	}}
}

func extension(mime string) string {
	switch mime {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/webp":
		return ".webp"
	case "image/gif":
		return ".gif"
	}
	return ".bin"
}
