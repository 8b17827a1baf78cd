package checkpoint

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
)

// NoteSourceForkApply is the Source of the note row ApplyFork adds.
const NoteSourceForkApply = "fork_apply"

// Applied is what ApplyFork brought into the parent's folder: the parent's
// note row (the changes are recorded on it, as hunks to review) and the paths.
type Applied struct {
	ParentID string   `json:"parent_id"`
	Seq      int64    `json:"seq"`
	Paths    []string `json:"paths"`
}

// ApplyFork brings the changes fork forkID made in its own folder (each path
// its captures changed, as the fork's folder holds it now) into its
// parent's folder, and records them on a note row of the parent
// (store.KindNote, Source "fork_apply"), as the agent's changes: their hunks
// wait in the parent's review until kept or reverted. A path the parent's
// folder changed since the fork started from it is a *ConflictError and
// nothing changes. ErrNotFound when the fork changed nothing; ErrBusy while
// the parent has a tool call in flight.
func (r *Recorder) ApplyFork(ctx context.Context, forkID string) (Applied, error) {
	out, err := r.applyFork(ctx, forkID)
	if err != nil {
		return out, fmt.Errorf("apply fork %s to its parent's folder: %w", forkID, err)
	}
	return out, nil
}

// idleSession is the session id when none of its tool calls is running (ErrBusy then):
// what the person's own changes to its folder wait for.
func (r *Recorder) idleSession(ctx context.Context, id string) (store.Session, error) {
	s, err := r.db.GetSession(ctx, id)
	if err != nil {
		return store.Session{}, err
	}
	if pending, err := r.db.PendingCalls(ctx, id); err != nil || len(pending) > 0 {
		if err == nil {
			err = ErrBusy
		}
		return store.Session{}, err
	}
	return s, nil
}

func (r *Recorder) applyFork(ctx context.Context, forkID string) (Applied, error) {
	fork, err := r.db.GetSession(ctx, forkID)
	if err != nil {
		return Applied{}, err
	}
	if fork.ParentID == "" {
		return Applied{}, fmt.Errorf("%w: session %s is not a fork", ErrNotFound, forkID)
	}
	parent, err := r.idleSession(ctx, fork.ParentID)
	if err != nil {
		return Applied{}, err
	}
	bases, targets, err := r.forkState(ctx, fork)
	if err != nil {
		return Applied{}, err
	}
	rs, err := r.caughtUp(ctx, parent.Workspace, parent.ID, "", "fork-apply")
	if err != nil {
		return Applied{}, err
	}
	defer rs.release()
	out := Applied{ParentID: parent.ID, Paths: []string{}}
	current := map[string]*Entry{}
	var conflicts []Conflict
	for p, t := range targets {
		cur := rs.cache[p]
		if sameContent(cur, t) {
			delete(targets, p)
			continue
		}
		if !sameContent(cur, bases[p]) {
			conflicts = append(conflicts, Conflict{Path: p, By: "the parent's folder, since the fork"})
		}
		current[p] = cur
		out.Paths = append(out.Paths, p)
	}
	sort.Strings(out.Paths)
	if len(conflicts) > 0 {
		sort.Slice(conflicts, func(i, j int) bool { return conflicts[i].Path < conflicts[j].Path })
		return Applied{}, &ConflictError{Files: conflicts}
	}
	if len(targets) == 0 {
		return out, fmt.Errorf("%w: the parent's folder already holds the fork's changes", ErrNotFound)
	}
	return out, r.landFork(ctx, rs, fork, targets, current, &out)
}

// forkState is, for each path the fork's captures changed, the state the
// fork started from (the first change's before) and the state its folder
// holds now.
func (r *Recorder) forkState(ctx context.Context, fork store.Session) (bases, targets map[string]*Entry, err error) {
	rs, err := r.caughtUp(ctx, fork.Workspace, fork.ID, "", "fork-apply")
	if err != nil {
		return nil, nil, err
	}
	defer rs.release()
	rows, err := queryChanges(ctx, r.sql, `c.session_id = ? AND c.seq > 0 AND c.root = ?`, fork.ID, rs.path)
	if err != nil {
		return nil, nil, err
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("%w: the fork changed no file", ErrNotFound)
	}
	bases, targets = map[string]*Entry{}, map[string]*Entry{}
	for _, row := range rows {
		if _, ok := bases[row.Path]; !ok {
			bases[row.Path] = row.Before
		}
		targets[row.Path] = rs.cache[row.Path]
	}
	for p, t := range targets {
		if t != nil && t.Kind == KindFile && !t.Stored {
			return nil, nil, fmt.Errorf("%s: %w (over %d bytes)", p, ErrNoContent, r.opts.MaxContent)
		}
	}
	return bases, targets, nil
}

// landFork writes the fork's states into the parent's folder, adds the note
// row and records the changes on it.
func (r *Recorder) landFork(ctx context.Context, rs *rootState, fork store.Session, targets, current map[string]*Entry, out *Applied) error {
	touched, err := r.writeStates(ctx, rs.fsr, targets, current, nil)
	if err != nil {
		return err
	}
	text := fmt.Sprintf("The person applied the changes of fork %s (forked at row %d) to this folder: %s. "+
		"They are not reviewed yet. Read these files again before relying on their contents.",
		fork.ID, fork.ForkSeq, strings.Join(out.Paths, ", "))
	rows, err := r.db.Append(ctx, out.ParentID, "", store.NewChunk{Kind: store.KindNote,
		Payload: store.NotePayload{Source: NoteSourceForkApply, Text: text}})
	if err != nil {
		return err
	}
	out.Seq = rows[0].Seq
	ds, err := r.refresh(ctx, rs, touched...)
	if err != nil {
		return err
	}
	return r.commit(ctx, rs, ds, func(tx *sql.Tx) error {
		return recordCapture(ctx, tx, out.ParentID, "", "fork:"+fork.ID, rs.path, out.Seq, r.opts.Now().UnixMilli(), ds)
	})
}
