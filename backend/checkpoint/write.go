package checkpoint

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// apply writes the plan's targets into the session's folder.
func (r *Recorder) apply(ctx context.Context, rs *rootState, p *Plan) ([]string, error) {
	return r.writeStates(ctx, rs.fsr, p.targets, p.current, nil)
}

// writeStates makes each path in targets hold its target state (nil =
// absent), given what is there now (current). Everything goes through root,
// so no path, however its folders were swapped for symlinks, leads outside.
// Removals go deepest first, creations shallowest first; a folder is only
// removed when empty, so files the session never recorded (ignored ones
// included) are never deleted. copyFrom, when set, is where a big file
// without stored content may be copied from. It returns the paths touched.
func (r *Recorder) writeStates(ctx context.Context, root *os.Root, targets, current map[string]*Entry, copyFrom *os.Root) ([]string, error) {
	paths := make([]string, 0, len(targets))
	for p := range targets {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool {
		return depth(paths[i]) > depth(paths[j]) || depth(paths[i]) == depth(paths[j]) && paths[i] > paths[j]
	})
	for _, p := range paths {
		t, cur := targets[p], current[p]
		if cur == nil || (t != nil && t.Kind == cur.Kind && cur.Kind != KindLink) {
			continue
		}
		if err := root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			if cur.Kind == KindDir {
				return nil, fmt.Errorf("remove folder %s: it holds files the session never recorded (left in place): %w", p, err)
			}
			return nil, fmt.Errorf("remove %s: %w", p, err)
		}
		current[p] = nil
	}
	sort.Strings(paths)
	var pend []pending
	defer func() {
		for _, w := range pend { // only left when something failed
			w.f.Close()
			root.Remove(w.tmp)
		}
	}()
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t, cur := targets[p], current[p]
		if t == nil {
			continue
		}
		if dir := path.Dir(p); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("restore %s: %w", p, err)
			}
		}
		w, err := r.writeOne(ctx, root, p, t, cur, copyFrom)
		if err != nil {
			return nil, fmt.Errorf("restore %s: %w", p, err)
		}
		if w != nil {
			pend = append(pend, *w)
		}
	}
	if err := syncAll(pend); err != nil {
		return nil, err
	}
	for len(pend) > 0 {
		w := pend[0]
		if err := root.Rename(w.tmp, w.path); err != nil {
			return nil, fmt.Errorf("restore %s: %w", w.path, err)
		}
		pend = pend[1:]
	}
	return paths, nil
}

// pending is a file's new content written beside it, not yet synced and
// renamed into place.
type pending struct {
	path, tmp string
	f         *os.File
}

// syncAll fsyncs the written files concurrently (the filesystem commits
// them in one journal transaction instead of one each) and closes them.
func syncAll(ws []pending) error {
	errs := make(chan error, len(ws))
	sem := make(chan struct{}, 16)
	for _, w := range ws {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			err := w.f.Sync()
			if cerr := w.f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				err = fmt.Errorf("restore %s: %w", w.path, err)
			}
			errs <- err
		}()
	}
	var first error
	for range ws {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

func depth(p string) int { return strings.Count(p, "/") }

// writeOne makes p hold t. A file's new content is returned as pending:
// the caller syncs and renames it.
func (r *Recorder) writeOne(ctx context.Context, root *os.Root, p string, t, cur *Entry, copyFrom *os.Root) (*pending, error) {
	switch t.Kind {
	case KindDir:
		if cur == nil {
			if err := root.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, err
			}
		}
		return nil, root.Chmod(p, t.Mode)
	case KindLink:
		return nil, root.Symlink(t.Target, p)
	}
	if cur != nil && cur.Kind == KindFile && cur.SHA256 == t.SHA256 {
		return nil, root.Chmod(p, t.Mode)
	}
	var data []byte
	var err error
	if t.Stored {
		data, err = getBlob(ctx, r.sql, t.SHA256, r.opts.MaxContent)
	} else if copyFrom != nil {
		data, err = copyFrom.ReadFile(p) // fork of a big file nobody changed
	} else {
		err = ErrNoContent
	}
	if err != nil {
		return nil, err
	}
	return writeTemp(root, p, data, t.Mode)
}

// writeTemp writes data to a temporary file beside p; once synced and
// renamed over p, a kill leaves either the old or the new content.
func writeTemp(root *os.Root, p string, data []byte, mode fs.FileMode) (*pending, error) {
	var b [6]byte
	rand.Read(b[:])
	tmp := path.Join(path.Dir(p), ".loopdesk-restore-"+hex.EncodeToString(b[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err != nil {
		f.Close()
		root.Remove(tmp)
		return nil, err
	}
	return &pending{path: p, tmp: tmp, f: f}, nil
}
