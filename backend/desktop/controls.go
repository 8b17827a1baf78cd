package desktop

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopdesk/loopdesk/backend/chat"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/transcript"
)

// The conversation controls: edit and resend, regenerate, retry, and the versions
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

// EditAndResend forks the session just before the person's message at seq, appends text as
// the new message in the fork and starts a run there. The original session's rows are kept;
// restoreFiles brings the files its rows from seq on changed back to before them first (a
// restore row of the original; a conflict fails the edit and forks nothing), else the fork's
// run starts with a note naming those files (chat.FilesKeep).
func (h *Chat) EditAndResend(sessionID string, seq int64, text string, restoreFiles bool) (ForkedRun, error) {
	f, err := h.c.chat.Edit(h.c.context(), sessionID, seq, text, filesOf(restoreFiles), chat.Run{})
	return h.c.forked(f, err)
}

// Regenerate forks the session just before the run that produced the reply at seq, keeping
// the message that run answered, and runs again from there: the new reply is a version of
// the old one. The original session's rows are kept; restoreFiles is as for EditAndResend.
func (h *Chat) Regenerate(sessionID string, seq int64, restoreFiles bool) (ForkedRun, error) {
	if seq == 0 {
		// Row 0 would mean "the last reply" to the layer; the page always names its row.
		return ForkedRun{}, fmt.Errorf("%w: row 0 is not a reply of the model", ErrInvalidInput)
	}
	f, err := h.c.chat.Regenerate(h.c.context(), sessionID, seq, filesOf(restoreFiles), chat.Run{})
	return h.c.forked(f, err)
}

// Retry runs the session again from its last complete row after a run that ended on a
// provider error, a timeout, an error or an interruption. The person's message is already
// stored: the run adds nothing before calling the model, so it is never sent twice.
func (h *Chat) Retry(sessionID string) (string, error) {
	return h.c.chat.Retry(h.c.context(), sessionID, chat.Run{})
}

func filesOf(restore bool) chat.Files {
	if restore {
		return chat.FilesRestore
	}
	return chat.FilesKeep
}

// forked is the page's view of a control's fork.
func (c *core) forked(f chat.Forked, err error) (ForkedRun, error) {
	if err != nil {
		return ForkedRun{}, err
	}
	return ForkedRun{Session: c.view(f.Session), RunID: f.RunID}, nil
}

// Branches lists the sets of versions the session belongs to, by fork point: the page shows
// a version switcher on the rows just after each At.
func (s *Sessions) Branches(sessionID string) ([]Branch, error) {
	family, err := s.c.db.Family(s.c.context(), sessionID)
	if errors.Is(err, store.ErrNotFound) {
		return []Branch{}, nil
	}
	if err != nil {
		return nil, err
	}
	return branchesOf(sessionID, family), nil
}

// branchesOf finds the branches of id among sessions (its family, store.Family). A version of a version (a
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
