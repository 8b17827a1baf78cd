package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CopyAt writes into dest (a new or empty folder) the session's tracked
// files as they were at row seq: the folder as it is now, with every change
// the session recorded after seq undone. It is "Fork from here" with files:
// the lead creates the fork with store.Fork and points it at dest with
// store.SetWorkspace. Ignored paths (.git, node_modules, .gitignore'd) are
// not copied. It returns the files it could not bring back (content over
// MaxContent that changed since seq).
func (r *Recorder) CopyAt(ctx context.Context, sessionID string, seq int64, dest string) ([]string, error) {
	out, err := r.copyAt(ctx, sessionID, seq, dest)
	if err != nil {
		return nil, fmt.Errorf("copy the folder of session %s at row %d to %s: %w", sessionID, seq, dest, err)
	}
	return out, nil
}

func (r *Recorder) copyAt(ctx context.Context, sessionID string, seq int64, dest string) ([]string, error) {
	s, err := r.db.GetSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if ents, err := os.ReadDir(dest); err == nil && len(ents) > 0 {
		return nil, ErrDestination
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	rs, err := r.acquire(ctx, s.Workspace)
	if err != nil {
		return nil, err
	}
	defer rs.release()
	ds, err := r.refresh(ctx, rs)
	if err == nil {
		err = r.commit(ctx, rs, ds, nil)
	}
	if err != nil {
		return nil, err
	}
	state := make(map[string]*Entry, len(rs.cache))
	for p, e := range rs.cache {
		state[p] = e
	}
	rows, err := queryChanges(ctx, r.sql, `c.session_id = ? AND c.seq > ? AND c.root = ?`+notOutside, sessionID, seq, rs.path)
	if err != nil {
		return nil, err
	}
	for i := len(rows) - 1; i >= 0; i-- { // newest first: the earliest before wins
		state[rows[i].Path] = rows[i].Before
	}
	var skipped []string
	targets := map[string]*Entry{}
	for p, e := range state {
		if e == nil {
			continue
		}
		if e.Kind == KindFile && !e.Stored && !sameContent(rs.cache[p], e) {
			skipped = append(skipped, p)
			continue
		}
		targets[p] = e
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(dest)
	droot, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	defer droot.Close()
	if _, err := r.writeStates(ctx, droot, targets, map[string]*Entry{}, rs.fsr); err != nil {
		return nil, err
	}
	return skipped, nil
}
