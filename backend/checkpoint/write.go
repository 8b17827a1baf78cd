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
		if err := r.writeOne(ctx, root, p, t, cur, copyFrom); err != nil {
			return nil, fmt.Errorf("restore %s: %w", p, err)
		}
	}
	return paths, nil
}

func depth(p string) int { return strings.Count(p, "/") }

func (r *Recorder) writeOne(ctx context.Context, root *os.Root, p string, t, cur *Entry, copyFrom *os.Root) error {
	switch t.Kind {
	case KindDir:
		if cur == nil {
			if err := root.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		}
		return root.Chmod(p, t.Mode)
	case KindLink:
		return root.Symlink(t.Target, p)
	}
	if cur != nil && cur.Kind == KindFile && cur.SHA256 == t.SHA256 {
		return root.Chmod(p, t.Mode)
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
		return err
	}
	return writeFile(root, p, data, t.Mode)
}

// writeFile replaces p atomically: a temporary file beside it, synced,
// then renamed over it, so a kill leaves the old or the new content.
func writeFile(root *os.Root, p string, data []byte, mode fs.FileMode) error {
	var b [6]byte
	rand.Read(b[:])
	tmp := path.Join(path.Dir(p), ".loopdesk-restore-"+hex.EncodeToString(b[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Chmod(tmp, mode)
	}
	if err == nil {
		err = root.Rename(tmp, p)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}
