package desktop

import (
	"fmt"

	"github.com/loopdesk/loopdesk/backend/chat"
	"github.com/loopdesk/loopdesk/backend/checkpoint"
)

// The folder under Edit and Regenerate. A version branches the conversation, but its run
// works in the session's folder as the abandoned rows left it: left alone, the new version
// would start among files it never wrote, and the model would not know. So the person picks
// (restore is the default when those rows changed files): bring the files back to before the
// branch point with the checkpoint restore (its conflict check included: a file changed since
// by someone else is reported, never overwritten from here), or keep them and the new run's
// first request carries a note naming them.

// NoteSourceKeptFiles is the source of the note a version's run starts with when the files
// the abandoned rows changed were kept.
const NoteSourceKeptFiles = chat.NoteSourceKeptFiles

// AbandonedFiles is what the edit and regenerate dialogs offer for the folder: the files the
// rows a new version would abandon changed, as a restore to before them would see them.
type AbandonedFiles struct {
	// Changed are the files not as they were before the abandoned rows (what a restore brings
	// back), with the change a restore undoes.
	Changed []checkpoint.Restored `json:"changed"`
	// Conflicts are the changed files someone else changed since: a restore refuses them.
	Conflicts []checkpoint.Conflict `json:"conflicts"`
	// Offer: the dialog shows "Also restore files to before this message" (checkpoints are
	// on, the rows changed files, and nothing, such as a running call, prevents a restore).
	Offer bool `json:"offer"`
	// Restore is the box's default: on when the abandoned rows changed files.
	Restore bool `json:"restore"`
}

// EditFiles says what editing the person's message at seq would leave in the folder.
func (h *Chat) EditFiles(sessionID string, seq int64) (AbandonedFiles, error) {
	at, err := h.c.chat.EditPoint(h.c.context(), sessionID, seq)
	if err != nil {
		return AbandonedFiles{}, err
	}
	return h.c.abandoned(sessionID, at)
}

// RegenerateFiles says what regenerating the reply at seq would leave in the folder.
func (h *Chat) RegenerateFiles(sessionID string, seq int64) (AbandonedFiles, error) {
	if seq == 0 {
		return AbandonedFiles{}, fmt.Errorf("%w: row 0 is not a reply of the model", ErrInvalidInput)
	}
	at, err := h.c.chat.RegeneratePoint(h.c.context(), sessionID, seq)
	if err != nil {
		return AbandonedFiles{}, err
	}
	return h.c.abandoned(sessionID, at)
}

// abandoned is the dialogs' view of chat.Abandoned: restore is offered, and on by default,
// when a restore would bring files back.
func (c *core) abandoned(sessionID string, at int64) (AbandonedFiles, error) {
	ab, err := c.chat.Abandoned(c.context(), sessionID, at)
	if err != nil {
		return AbandonedFiles{}, err
	}
	return AbandonedFiles{Changed: ab.Changed, Conflicts: ab.Conflicts, Offer: ab.Restorable, Restore: ab.Restorable}, nil
}
