package tools

import (
	"context"
	"errors"
	"io/fs"
	"strings"
)

// ErrStopWalk, returned by a Walk visitor, ends the walk early without an error.
var ErrStopWalk = errors.New("stop walk")

// Walk visits every file and folder below the workspace root that the file
// tools would see (.git, node_modules and .gitignore'd paths skipped), with
// slash-separated paths relative to the root, without following symlinks out
// of the workspace. The UI's file tree uses it. A visitor returning ErrStopWalk
// ends the walk with a nil error; fs.SkipDir skips a folder.
func (w *Workspace) Walk(ctx context.Context, visit func(rel string, d fs.DirEntry) error) error {
	if w == nil {
		return ErrNoWorkspace
	}
	if w.isClosed() {
		return ErrWorkspaceClosed
	}
	return walkWorkspace(ctx, w, ".", func(rel string, d fs.DirEntry) error {
		if rel == "." {
			return nil
		}
		return visit(rel, d)
	})
}

// walkWorkspace visits the files under start (a path relative to the root), skipping
// ignored files and folders (.gitignore, .git, node_modules) below start. Symlinks
// are reported, never followed. visit returns ErrStopWalk to end early.
func walkWorkspace(ctx context.Context, ws *Workspace, start string, visit func(rel string, d fs.DirEntry) error) error {
	fsys := ws.fsroot.FS()
	ig := newIgnoreMatcher(nil)
	if start != "." {
		// Rules of the folders above start apply to it as well.
		ig.loadFrom(fsys, ".")
		parts := strings.Split(start, "/")
		for i := 1; i < len(parts); i++ {
			ig.loadFrom(fsys, strings.Join(parts[:i], "/"))
		}
	}
	err := fs.WalkDir(fsys, start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start {
				return err
			}
			return nil // unreadable folder below start: skip it
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p != start && ig.ignored(p, d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			ig.loadFrom(fsys, p)
		}
		return visit(p, d)
	})
	if errors.Is(err, ErrStopWalk) {
		return nil
	}
	return err
}
