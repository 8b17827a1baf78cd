package desktop

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/transcript"
)

// The conversation controls (issue 20): edit and resend, regenerate, retry, and the versions
// they make. An edit or a regeneration is a fork, so nothing is overwritten: the original
// session keeps its rows and every version stays a session of its own, reachable from the
// version switcher and the lineage tree.

// ForkedRun is a fork made by a control and the run started in it.
type ForkedRun struct {
	Session Session `json:"session"`
	RunID   string  `json:"run_id"`
}

// Branch is a set of sessions that are versions of one another: they share the rows 1..At
// and differ from At+1 on. The versions of the person's message at seq n are a branch at
// n-1 (edits); the versions of a reply are a branch at the seq of the message it answers
// (regenerations).
type Branch struct {
	At int64 `json:"at"`
	// Sessions are the versions' ids, oldest first (the original first).
	Sessions []string `json:"sessions"`
	// Index is the asking session's place in Sessions.
	Index int `json:"index"`
}

// retryable are the ends of a run that Retry may run again from: the model failed or the
// run was stopped before it finished, so the last message has no complete answer.
var retryable = []string{string(loop.StopProviderError), string(loop.StopTimeout), string(loop.StopError),
	string(loop.StopCancelled), string(store.RunInterrupted)}

// EditAndResend forks the session just before the person's message at seq, appends text as
// the new message in the fork and starts a run there. The original session's rows are kept;
// restoreFiles brings the files its rows from seq on changed back to before them first (a
// restore row of the original; a conflict fails the edit and forks nothing), else the fork's
// run starts with a note naming those files (branchFiles).
func (h *Chat) EditAndResend(sessionID string, seq int64, text string, restoreFiles bool) (ForkedRun, error) {
	c := h.c
	text = strings.TrimSpace(text)
	if text == "" {
		return ForkedRun{}, fmt.Errorf("%w: the message is empty", ErrInvalidInput)
	}
	at, err := c.editAt(sessionID, seq)
	if err != nil {
		return ForkedRun{}, err
	}
	notes, err := c.branchFiles(sessionID, at, restoreFiles)
	if err != nil {
		return ForkedRun{}, err
	}
	return c.forkAndRun(sessionID, at, store.ForkEdited, func(spec *loop.RunSpec) { spec.Prompt, spec.Notes = text, notes })
}

// editAt is where an edit of the person's message at seq forks: just before it.
func (c *core) editAt(sessionID string, seq int64) (int64, error) {
	row, err := c.row(sessionID, seq)
	if err != nil {
		return 0, err
	}
	if row.Kind != store.KindUser {
		return 0, fmt.Errorf("%w: row %d is not a message of yours", ErrInvalidInput, seq)
	}
	return seq - 1, nil
}

// Regenerate forks the session just before the run that produced the reply at seq, keeping
// the message that run answered, and runs again from there: the new reply is a version of
// the old one. The original session's rows are kept; restoreFiles is as for EditAndResend.
func (h *Chat) Regenerate(sessionID string, seq int64, restoreFiles bool) (ForkedRun, error) {
	c := h.c
	at, err := c.regenerateAt(sessionID, seq)
	if err != nil {
		return ForkedRun{}, err
	}
	notes, err := c.branchFiles(sessionID, at, restoreFiles)
	if err != nil {
		return ForkedRun{}, err
	}
	return c.forkAndRun(sessionID, at, store.ForkRegenerated, func(spec *loop.RunSpec) { spec.Resume, spec.Notes = true, notes })
}

// regenerateAt reads the session's rows for regenerateFrom.
func (c *core) regenerateAt(sessionID string, seq int64) (int64, error) {
	rows, err := c.db.Chunks(c.context(), sessionID)
	if err != nil {
		return 0, err
	}
	return regenerateFrom(rows, seq)
}

// regenerateFrom is where a regeneration of the reply at seq forks: at the message that
// started the reply's run (kept in the fork), or just before the run when it started with
// no message (a retry or a regeneration itself).
func regenerateFrom(rows []store.Chunk, seq int64) (int64, error) {
	i := slices.IndexFunc(rows, func(r store.Chunk) bool { return r.Seq == seq })
	if i < 0 || rows[i].Kind != store.KindAssistant || rows[i].RunID == "" {
		return 0, fmt.Errorf("%w: row %d is not a reply of the model", ErrInvalidInput, seq)
	}
	first := slices.IndexFunc(rows, func(r store.Chunk) bool { return r.RunID == rows[i].RunID })
	if rows[first].Kind == store.KindUser {
		return rows[first].Seq, nil
	}
	return rows[first].Seq - 1, nil
}

// Retry runs the session again from its last complete row after a run that ended on a
// provider error, a timeout, an error or an interruption. The person's message is already
// stored: the run adds nothing before calling the model, so it is never sent twice.
func (h *Chat) Retry(sessionID string) (string, error) {
	c := h.c
	runs, err := c.db.ListRuns(c.context(), sessionID)
	if err != nil {
		return "", err
	}
	if len(runs) == 0 {
		return "", fmt.Errorf("%w: the session has no run to retry", ErrInvalidInput)
	}
	if last := runs[len(runs)-1]; !slices.Contains(retryable, string(last.Status)) {
		return "", fmt.Errorf("%w: the last run ended %s; there is nothing to retry", ErrInvalidInput, last.Status)
	}
	return c.start(sessionID, func(spec *loop.RunSpec) { spec.Resume = true })
}

// forkAndRun forks the session with the rows 1..at (a version of the kind, which its title
// names) and starts a run in the fork. A fork whose run cannot start (no model configured, a bad folder) is deleted again: a control
// that failed leaves no empty session behind.
func (c *core) forkAndRun(sessionID string, at int64, kind store.ForkKind, edit func(*loop.RunSpec)) (ForkedRun, error) {
	ctx := c.context()
	fork, err := c.db.ForkBefore(ctx, sessionID, at+1, kind)
	if err != nil {
		return ForkedRun{}, err
	}
	runID, err := c.start(fork.ID, edit)
	if err != nil {
		_ = c.db.DeleteSession(context.WithoutCancel(ctx), fork.ID) // the start's error is the one to report
		return ForkedRun{}, err
	}
	if fork, err = c.db.GetSession(ctx, fork.ID); err != nil { // start may have set its folder or title
		return ForkedRun{}, err
	}
	return ForkedRun{Session: c.view(fork), RunID: runID}, nil
}

// row returns one row of the session.
func (c *core) row(sessionID string, seq int64) (store.Chunk, error) {
	rows, err := c.db.Chunks(c.context(), sessionID)
	if err != nil {
		return store.Chunk{}, err
	}
	i := slices.IndexFunc(rows, func(r store.Chunk) bool { return r.Seq == seq })
	if i < 0 {
		return store.Chunk{}, fmt.Errorf("%w: session %s has no row %d", store.ErrSeqOutOfRange, sessionID, seq)
	}
	return rows[i], nil
}

// Branches lists the sets of versions the session belongs to, by fork point: the page shows
// a version switcher on the rows just after each At.
func (s *Sessions) Branches(sessionID string) ([]Branch, error) {
	all, err := s.c.db.ListSessions(s.c.context())
	if err != nil {
		return nil, err
	}
	return branchesOf(sessionID, all), nil
}

// branchesOf finds the branches of id among all sessions. A version of a version (a
// regeneration made in a regenerated fork) forks at the same point, so a branch is every
// session reached from its root by forks at At.
func branchesOf(id string, all []store.Session) []Branch {
	byID := map[string]store.Session{}
	children := map[string][]store.Session{}
	for _, x := range all {
		byID[x.ID] = x
		// A child session (a task call's) is no version of its parent: its fork_seq is the
		// row of its call, not a fork point.
		if x.ParentID != "" && x.ParentCallID == "" {
			children[x.ParentID] = append(children[x.ParentID], x)
		}
	}
	me, ok := byID[id]
	if !ok {
		return []Branch{}
	}
	var ats []int64
	if _, ok := byID[me.ParentID]; ok && me.ParentCallID == "" {
		ats = append(ats, me.ForkSeq)
	}
	for _, ch := range children[id] {
		ats = append(ats, ch.ForkSeq)
	}
	slices.Sort(ats)
	out := []Branch{}
	for _, at := range slices.Compact(ats) {
		members := branchAt(id, at, byID, children)
		if len(members) > 1 {
			out = append(out, Branch{At: at, Sessions: members, Index: slices.Index(members, id)})
		}
	}
	return out
}

// branchAt lists the versions of id at the fork point at, oldest first.
func branchAt(id string, at int64, byID map[string]store.Session, children map[string][]store.Session) []string {
	root := byID[id]
	for root.ParentID != "" && root.ParentCallID == "" && root.ForkSeq == at {
		p, ok := byID[root.ParentID]
		if !ok {
			break
		}
		root = p
	}
	members := []store.Session{root}
	for i := 0; i < len(members); i++ {
		for _, ch := range children[members[i].ID] {
			if ch.ForkSeq == at {
				members = append(members, ch)
			}
		}
	}
	slices.SortStableFunc(members[1:], func(a, b store.Session) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	ids := make([]string, len(members))
	for i, m := range members {
		ids[i] = m.ID
	}
	return ids
}

// ExportMarkdown writes the session as a readable Markdown transcript (package transcript)
// to a file the person picks. It returns the path written, or "" when the dialog was
// cancelled; a failed export leaves no partial file.
func (s *Sessions) ExportMarkdown(id string) (string, error) {
	ctx := s.c.context()
	x, err := s.c.db.GetSession(ctx, id)
	if err != nil {
		return "", err
	}
	path, err := s.c.dialogs.SaveFile("Export session as Markdown", strings.TrimSuffix(exportName(x), ".jsonl")+".md")
	if err != nil || path == "" {
		return "", err
	}
	opt := transcript.ImagesNextTo(ctx, s.c.db, path) // the images as files beside it
	err = writeAtomic(path, func(w io.Writer) error { return transcript.Export(ctx, s.c.db, id, w, opt) })
	if err != nil {
		return "", fmt.Errorf("export session %s as Markdown: %w", id, err)
	}
	return path, nil
}

// writeAtomic writes beside path and renames, so a failed write leaves no partial file.
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".loopdesk-export-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
