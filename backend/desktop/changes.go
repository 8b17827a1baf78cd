package desktop

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Checkpoints in the window: what each row changed, the diff of one file at one row, and
// restoring the folder (or one file) to before a row, after a preview.

// Changes lists every path the session's rows changed, oldest first.
func (h *Workspace) Changes(sessionID string) ([]checkpoint.Change, error) {
	cs, err := h.c.st.Checkpoints.Changes(h.c.context(), sessionID)
	if cs == nil && err == nil {
		cs = []checkpoint.Change{}
	}
	return cs, err
}

// FileDiff is one file's content before and after the call of one row.
type FileDiff struct {
	Path   string `json:"path"`
	Change string `json:"change"`
	Before string `json:"before"`
	After  string `json:"after"`
	// Note says why a side is empty or not shown (binary, too large, not stored).
	Note string `json:"note"`
}

// maxDiffSide bounds each side of a diff sent to the page.
const maxDiffSide = 256 << 10

// FileDiff returns path's content before and after row seq changed it.
func (h *Workspace) FileDiff(sessionID string, seq int64, path string) (FileDiff, error) {
	c := h.c
	cs, err := c.st.Checkpoints.Changes(c.context(), sessionID)
	if err != nil {
		return FileDiff{}, err
	}
	for _, ch := range cs {
		if ch.Seq != seq || ch.Path != path {
			continue
		}
		d := FileDiff{Path: path, Change: string(ch.Change)}
		var notes []string
		d.Before, notes = c.side(ch.Before, notes)
		d.After, notes = c.side(ch.After, notes)
		if len(notes) > 0 {
			d.Note = notes[0]
		}
		return d, nil
	}
	return FileDiff{}, fmt.Errorf("row %d did not change %s: %w", seq, path, store.ErrNotFound)
}

func (c *core) side(e *checkpoint.Entry, notes []string) (string, []string) {
	if e == nil || e.Kind != checkpoint.KindFile {
		return "", notes
	}
	b, err := c.st.Checkpoints.Content(c.context(), e)
	switch {
	case errors.Is(err, checkpoint.ErrNoContent):
		return "", append(notes, "the content was not kept (larger than 10 MiB, or imported without contents)")
	case err != nil:
		return "", append(notes, err.Error())
	case !utf8.Valid(b):
		return "", append(notes, fmt.Sprintf("binary file (%d bytes)", len(b)))
	case len(b) > maxDiffSide:
		return string(b[:maxDiffSide]), append(notes, "cut at 256 KiB")
	}
	return string(b), notes
}

// RestorePreview lists what restoring to before row toSeq would change (only path, when not
// ""), the files changed outside the session since, and other sessions' changes it would
// undo. Nothing changes.
func (h *Workspace) RestorePreview(sessionID string, toSeq int64, path string) (checkpoint.Plan, error) {
	return h.restore(sessionID, toSeq, path, true, nil)
}

// Restore brings the folder (or path) back to before row toSeq. Files changed outside the
// session since are overwritten only when listed in override; otherwise nothing changes and
// the error names them. The restore is a row of its own, so it can be undone.
func (h *Workspace) Restore(sessionID string, toSeq int64, path string, override []string) (checkpoint.Plan, error) {
	return h.restore(sessionID, toSeq, path, false, override)
}

func (h *Workspace) restore(sessionID string, toSeq int64, path string, dry bool, override []string) (checkpoint.Plan, error) {
	return h.c.restore(sessionID, toSeq, path, dry, override)
}

// restore is Workspace.Restore (a dry run with dry) for every control that restores files.
func (c *core) restore(sessionID string, toSeq int64, path string, dry bool, override []string) (checkpoint.Plan, error) {
	if c.running(sessionID) {
		return checkpoint.Plan{}, errBusy("restore files of session " + sessionID)
	}
	plan, err := c.st.Checkpoints.Restore(c.context(), sessionID, checkpoint.RestoreOptions{ToSeq: toSeq, Path: path,
		DryRun: dry, Override: override})
	if err != nil {
		return plan, err
	}
	if !dry && plan.Seq > 0 {
		c.publishRows(sessionID, plan.Seq)
	}
	return plan, nil
}

// publishRows sends rows appended outside a run (a restore) the way the runner sends its own.
func (c *core) publishRows(sessionID string, from int64) {
	rows, err := c.db.ChunksAfter(c.context(), sessionID, from-1)
	if err != nil || len(rows) == 0 {
		return
	}
	_, _ = c.st.Runner.Bus().Publish(c.context(), bus.Event{SessionID: sessionID, Payload: bus.RowsStoredPayload{Rows: bus.RowsOf(rows)}})
}

// ForkSessionWithFiles forks the session at seq and gives the fork its own working copy
// (checkpoint.MakeForkFolder, in the app's data folder): a git worktree on branch
// loopdesk/<fork id> with the session's changes up to seq, or a full copy of the folder.
// When the folder cannot be made the fork is deleted again: no fork without its folder.
func (s *Sessions) ForkSessionWithFiles(id string, seq int64) (Session, error) {
	c := s.c
	ctx := c.context()
	fork, err := c.db.Fork(ctx, id, seq)
	if err != nil {
		return Session{}, err
	}
	ff, err := c.st.Checkpoints.MakeForkFolder(ctx, id, seq, fork.ID, c.forksDir())
	if err == nil {
		err = c.db.SetWorkspace(ctx, fork.ID, ff.Folder)
	}
	if err != nil {
		checkpoint.RemoveForkFolder(ctx, c.forksDir(), fork.ID)
		c.db.DeleteSession(ctx, fork.ID)
		return Session{}, fmt.Errorf("fork with files: %w", err)
	}
	fork.Workspace = ff.Folder
	return c.view(fork), nil
}
