package tools

import (
	"context"
	"errors"
	"io/fs"
)

// ErrStopWalk, returned by a Walk visitor, ends the walk without an error.
var ErrStopWalk = errors.New("stop walk")

// Walk visits every file and folder below the workspace root that the file
// tools would see (.git, node_modules and .gitignore'd paths skipped), with
// slash-separated paths relative to the root, without following symlinks out
// of the workspace. The UI's file tree uses it.
func (w *Workspace) Walk(ctx context.Context, visit func(rel string, d fs.DirEntry) error) error {
	err := walkWorkspace(ctx, w, ".", func(rel string, d fs.DirEntry) error {
		if rel == "." {
			return nil
		}
		return visit(rel, d)
	})
	if errors.Is(err, ErrStopWalk) {
		return nil
	}
	return err
}
