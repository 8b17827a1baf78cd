package desktop

import (
	"fmt"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
)

// Review in the window: every change the agent made as hunks, each kept or reverted (the
// reverse applied to the file as it is now, refused when those lines changed since), and a
// fork's changes brought into its parent's folder as hunks to review.

// Hunks lists the hunks of every text-file change of the session's rows with their review
// state (unreviewed, kept or reverted); the page filters the unreviewed ones.
func (h *Workspace) Hunks(sessionID string) ([]checkpoint.Hunk, error) {
	return h.c.st.Checkpoints.Hunks(h.c.context(), sessionID)
}

// KeepHunk marks one hunk reviewed and kept.
func (h *Workspace) KeepHunk(sessionID string, seq int64, path string, hunk int) (checkpoint.Hunk, error) {
	return h.c.st.Checkpoints.Keep(h.c.context(), sessionID, seq, path, hunk)
}

// RevertedHunk is what a revert did: the hunk (now "reverted"), its note row and the lines
// of the current file that went back.
type RevertedHunk struct {
	Hunk     checkpoint.Hunk `json:"hunk"`
	NoteSeq  int64           `json:"note_seq"`
	FromLine int             `json:"from_line"`
	ToLine   int             `json:"to_line"`
}

// RevertHunk reverts one hunk. Refused while the session runs, and when the hunk's lines
// changed since (the error names them; nothing changed). The note row telling the model is
// published like the runner's rows.
func (h *Workspace) RevertHunk(sessionID string, seq int64, path string, hunk int) (RevertedHunk, error) {
	c := h.c
	if c.running(sessionID) {
		return RevertedHunk{}, errBusy("revert a hunk of session " + sessionID)
	}
	res, err := c.st.Checkpoints.RevertHunk(c.context(), sessionID, seq, path, hunk, "")
	if err != nil {
		return RevertedHunk{}, err
	}
	c.publishRows(sessionID, res.NoteSeq)
	return RevertedHunk{Hunk: res.Hunk, NoteSeq: res.NoteSeq, FromLine: res.FromLine, ToLine: res.ToLine}, nil
}

// ApplyToParent brings the fork's changes into its parent's folder, recorded on a note row
// of the parent as hunks to review there. Refused while the parent runs, and naming the
// files the parent changed since the fork (nothing changes then).
func (h *Workspace) ApplyToParent(forkID string) (checkpoint.Applied, error) {
	c := h.c
	fork, err := c.db.GetSession(c.context(), forkID)
	if err != nil {
		return checkpoint.Applied{}, err
	}
	if fork.ParentID != "" && c.running(fork.ParentID) {
		return checkpoint.Applied{}, errBusy("apply fork " + forkID + " to its parent " + fork.ParentID)
	}
	out, err := c.st.Checkpoints.ApplyFork(c.context(), forkID)
	if err != nil {
		return out, err
	}
	c.publishRows(out.ParentID, out.Seq)
	return out, nil
}

// ForkFolder is where a fork with files works, for the session header: the folder, its git
// branch ("" when not a worktree) and its size on disk. Folder is "" for a session that does
// not work in a fork folder Loopdesk made.
type ForkFolder struct {
	Folder string `json:"folder"`
	Branch string `json:"branch"`
	Bytes  int64  `json:"bytes"`
}

// ForkFolderOf describes the session's fork folder.
func (s *Sessions) ForkFolderOf(id string) (ForkFolder, error) {
	c := s.c
	x, err := c.db.GetSession(c.context(), id)
	if err != nil {
		return ForkFolder{}, err
	}
	root := checkpoint.ForkRootOf(c.forksDir(), x)
	if root == "" {
		return ForkFolder{}, nil
	}
	out := ForkFolder{Folder: x.Workspace, Bytes: checkpoint.DiskUse(root)}
	if checkpoint.IsWorktree(root) {
		out.Branch = checkpoint.BranchOf(id)
	}
	return out, nil
}

// DeleteSessionAndFolder deletes a fork session and the folder Loopdesk made for it (its
// worktree and branch too). Refused, with nothing deleted, for a session whose folder
// Loopdesk did not make. It returns the folder removed.
func (s *Sessions) DeleteSessionAndFolder(id string) (string, error) {
	c := s.c
	if c.running(id) {
		return "", errBusy("delete session " + id)
	}
	x, err := c.db.GetSession(c.context(), id)
	if err != nil {
		return "", err
	}
	if checkpoint.ForkRootOf(c.forksDir(), x) == "" {
		return "", fmt.Errorf("%s is not a fork folder Loopdesk made; nothing was deleted", x.Workspace)
	}
	if err := c.db.DeleteSession(c.context(), id); err != nil {
		return "", err
	}
	return checkpoint.RemoveForkFolder(c.context(), c.forksDir(), id)
}

// OrphanForks lists fork folders whose session is gone, with their sizes, largest first.
func (s *Sessions) OrphanForks() ([]checkpoint.Orphan, error) {
	return checkpoint.Orphans(s.c.context(), s.c.db, s.c.forksDir())
}

// RemoveOrphanFork removes a fork folder whose session is gone (worktree and branch too).
func (s *Sessions) RemoveOrphanFork(forkID string) (string, error) {
	if _, err := s.c.db.GetSession(s.c.context(), forkID); err == nil {
		return "", fmt.Errorf("session %s still exists: delete the session to remove its folder", forkID)
	}
	return checkpoint.RemoveForkFolder(s.c.context(), s.c.forksDir(), forkID)
}

func (c *core) forksDir() string { return checkpoint.ForksDir(c.db.Path()) }
