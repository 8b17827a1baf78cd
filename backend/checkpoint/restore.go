package checkpoint

import (
	"context"
	"database/sql"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
)

// RestoreOptions say what to restore.
type RestoreOptions struct {
	// ToSeq: every tracked file the session changed at or after this row
	// goes back to its state before it.
	ToSeq int64
	// Path, when set, restores only this path (and what is below it).
	Path string
	// DryRun: compute and return the plan, change nothing.
	DryRun bool
	// Override lists files changed outside since that may be overwritten
	// (the person chose to); any other such file is a *ConflictError.
	Override []string
	// RunID goes on the restore row.
	RunID string
}

// Restored is one path a restore brings back; Change is the change undone.
type Restored struct {
	Path   string     `json:"path"`
	Change ChangeKind `json:"change"`
}

// Other is a later change by another session sharing the folder that the
// restore would undo.
type Other struct {
	Path      string `json:"path"`
	SessionID string `json:"session_id"`
	Seq       int64  `json:"seq"`
}

// Plan is what a restore does (or, with DryRun, would do).
type Plan struct {
	Restored []Restored `json:"restored"`
	DryRun   bool       `json:"dry_run"`
	// Conflicts: files changed since the session last recorded them. A
	// restore (not a dry run) fails with *ConflictError unless all of them
	// are in Override.
	Conflicts []Conflict `json:"conflicts,omitempty"`
	// Others: later changes of other sessions this restore would undo.
	Others []Other `json:"others,omitempty"`
	// Unrestorable: files whose earlier content was never stored (over
	// MaxContent): left as they are.
	Unrestorable []string `json:"unrestorable,omitempty"`
	// Seq is the restore's own row (0 for a dry run).
	Seq int64 `json:"seq,omitempty"`
	// Changes are what the restore itself changed, recorded on row Seq.
	Changes []Change `json:"-"`

	targets map[string]*Entry
	current map[string]*Entry
}

// Restore brings the session's folder back to its state before row
// opts.ToSeq (see RestoreOptions), records a restore row listing what it
// did, and records the restore's own changes on that row, so it can be
// undone like any other. Errors: ErrFolderGone, ErrBusy (a tool call is
// running), *ConflictError (nothing changed), ErrNotFound (the session
// changed nothing at or after the row).
func (r *Recorder) Restore(ctx context.Context, sessionID string, opts RestoreOptions) (Plan, error) {
	p, err := r.restore(ctx, sessionID, opts)
	if err != nil {
		return p, fmt.Errorf("restore session %s to before row %d: %w", sessionID, opts.ToSeq, err)
	}
	return p, nil
}

func (r *Recorder) restore(ctx context.Context, sessionID string, opts RestoreOptions) (Plan, error) {
	s, err := r.idleSession(ctx, sessionID)
	if err != nil {
		return Plan{}, err
	}
	rs, err := r.caughtUp(ctx, s.Workspace, sessionID, opts.RunID, "restore")
	if err != nil {
		return Plan{}, err
	}
	defer rs.release()
	spans, err := r.lineage(ctx, s)
	if err != nil {
		return Plan{}, err
	}
	p, err := r.plan(ctx, rs, sessionID, spans, opts)
	if err != nil || opts.DryRun {
		return p, err
	}
	if err := conflictsLeft(p.Conflicts, opts.Override); err != nil {
		return p, err
	}
	touched, err := r.apply(ctx, rs, &p)
	if err != nil {
		return p, err
	}
	row := store.RestorePayload{ToSeq: opts.ToSeq, Path: opts.Path, Restored: []store.RestoredPath{}, Skipped: p.Unrestorable}
	for _, x := range p.Restored {
		row.Restored = append(row.Restored, store.RestoredPath{Path: x.Path, Change: string(x.Change)})
	}
	for _, c := range p.Conflicts {
		row.Overridden = append(row.Overridden, c.Path)
	}
	rows, err := r.db.Append(ctx, sessionID, opts.RunID, store.NewChunk{Kind: store.KindRestore, Payload: row})
	if err != nil {
		return p, err
	}
	p.Seq = rows[0].Seq
	// What the restore changed, on its row, in one transaction with the
	// capture: a kill before it leaves these changes to show up as outside
	// changes of the folder (a later restore then asks before touching them).
	ds, err := r.refresh(ctx, rs, touched...)
	if err != nil {
		return p, err
	}
	err = r.commit(ctx, rs, ds, func(tx *sql.Tx) error {
		return recordCapture(ctx, tx, sessionID, opts.RunID, fmt.Sprintf("restore:%d", p.Seq), rs.path, p.Seq, r.opts.Now().UnixMilli(), ds)
	})
	p.Changes = personal(changesOf(ds, p.Seq))
	return p, err
}

func conflictsLeft(cs []Conflict, override []string) error {
	var left []Conflict
	for _, c := range cs {
		ok := false
		for _, o := range override {
			if path.Clean(o) == c.Path {
				ok = true
			}
		}
		if !ok {
			left = append(left, c)
		}
	}
	if len(left) > 0 {
		return &ConflictError{Files: left}
	}
	return nil
}

// plan works out, per path the session's line (spans) changed at or after
// ToSeq, the state to go back to (before its first such change) and whether
// the file is still as the line last left it. A fork's rows copied from its
// parent restore with the parent's records: in a shared folder as the
// parent's restore would (a later change of the parent's is a conflict), in
// a fork's own folder with the same paths and the stored contents.
func (r *Recorder) plan(ctx context.Context, rs *rootState, sessionID string, spans []lineSpan, opts RestoreOptions) (Plan, error) {
	spans[0].root = rs.path
	line, args := spansWhere(spans, true)
	where := line + ` AND c.seq >= ?` + notOutside
	args = append(args, opts.ToSeq)
	if opts.Path != "" {
		pp := path.Clean(strings.TrimPrefix(opts.Path, "./"))
		where += ` AND (ch.path = ? OR substr(ch.path, 1, ?) = ?)`
		args = append(args, pp, len(pp)+1, pp+"/")
	}
	rows, err := queryChanges(ctx, r.sql, where, args...)
	if err != nil {
		return Plan{}, err
	}
	if len(rows) == 0 {
		return Plan{}, fmt.Errorf("%w: the session changed no tracked file at or after row %d", ErrNotFound, opts.ToSeq)
	}
	p := Plan{DryRun: opts.DryRun, Restored: []Restored{}, targets: map[string]*Entry{}, current: map[string]*Entry{}}
	first, last := map[string]changeRow{}, map[string]changeRow{}
	var paths []string
	for _, row := range rows {
		if _, ok := first[row.Path]; !ok {
			first[row.Path] = row
			paths = append(paths, row.Path)
		}
		last[row.Path] = row
	}
	sort.Strings(paths)
	for _, pth := range paths {
		f, l, cur := first[pth], last[pth], rs.cache[pth]
		if sameContent(cur, f.Before) {
			continue // already as it was: nothing to overwrite
		}
		if f.Before != nil && f.Before.Kind == KindFile && !f.Before.Stored {
			p.Unrestorable = append(p.Unrestorable, pth)
			continue
		}
		if !sameContent(cur, l.After) {
			by, err := r.whoChanged(ctx, rs, sessionID, pth, l.captureID, cur, &p)
			if err != nil {
				return Plan{}, err
			}
			p.Conflicts = append(p.Conflicts, Conflict{Path: pth, By: by})
		}
		p.targets[pth], p.current[pth] = f.Before, cur
		p.Restored = append(p.Restored, Restored{Path: pth, Change: undone(f, cur)})
	}
	return p, nil
}

// undone names the change being undone: what separates the state to go
// back to from the current one, seen from the current one (a file the
// session created is "created"), or the session's first change.
func undone(f changeRow, cur *Entry) ChangeKind {
	if k, ok := diff(f.Before, cur); ok {
		return k
	}
	return f.Change.Change
}

// whoChanged says who changed pth after the session's capture: another
// session sharing the folder (also added to p.Others) or "outside".
func (r *Recorder) whoChanged(ctx context.Context, rs *rootState, sessionID, pth string, after int64, cur *Entry, p *Plan) (string, error) {
	rows, err := queryChanges(ctx, r.sql, `c.root = ? AND c.id > ? AND c.session_id <> ? AND c.seq > 0 AND ch.path = ?`+notOutside,
		rs.path, after, sessionID, pth)
	if err != nil {
		return "", err
	}
	by := "outside"
	for _, row := range rows {
		p.Others = append(p.Others, Other{Path: pth, SessionID: row.sessionID, Seq: row.Seq})
		if sameContent(cur, row.After) {
			by = fmt.Sprintf("session %s row %d", row.sessionID, row.Seq)
		}
	}
	return by, nil
}
