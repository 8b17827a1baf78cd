package desktop

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
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
const NoteSourceKeptFiles = "kept_files"

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
	at, err := h.c.editAt(sessionID, seq)
	if err != nil {
		return AbandonedFiles{}, err
	}
	return h.c.abandoned(sessionID, at)
}

// RegenerateFiles says what regenerating the reply at seq would leave in the folder.
func (h *Chat) RegenerateFiles(sessionID string, seq int64) (AbandonedFiles, error) {
	at, err := h.c.regenerateAt(sessionID, seq)
	if err != nil {
		return AbandonedFiles{}, err
	}
	return h.c.abandoned(sessionID, at)
}

// abandoned lists the files the session's rows after at changed. A dry run of the restore
// says which are still changed and which conflict; when it cannot run (a call in flight, the
// folder gone) no restore is offered and the rows' recorded changes are listed instead.
func (c *core) abandoned(sessionID string, at int64) (AbandonedFiles, error) {
	out := AbandonedFiles{Changed: []checkpoint.Restored{}, Conflicts: []checkpoint.Conflict{}}
	rec := c.st.Checkpoints
	if rec == nil {
		return out, nil
	}
	if !c.running(sessionID) {
		plan, err := rec.Restore(c.context(), sessionID, checkpoint.RestoreOptions{ToSeq: at + 1, DryRun: true})
		switch {
		case errors.Is(err, checkpoint.ErrNotFound):
			return out, nil
		case err == nil:
			out.Changed = append(out.Changed, plan.Restored...)
			out.Conflicts = append(out.Conflicts, plan.Conflicts...)
			out.Offer = len(out.Changed) > 0
			out.Restore = out.Offer
			return out, nil
		}
	}
	cs, err := rec.Changes(c.context(), sessionID)
	if err != nil {
		return out, err
	}
	seen := map[string]int{}
	for _, ch := range cs {
		if ch.Seq <= at || ch.By == checkpoint.ByOutside {
			continue
		}
		if i, ok := seen[ch.Path]; ok {
			out.Changed[i].Change = ch.Change
			continue
		}
		seen[ch.Path] = len(out.Changed)
		out.Changed = append(out.Changed, checkpoint.Restored{Path: ch.Path, Change: ch.Change})
	}
	return out, nil
}

// branchFiles deals with the folder before a version forked at at starts: with restore, the
// files the rows after at changed go back to before them (a restore row of the session; a
// conflict is returned and nothing changes); otherwise the version's run starts with a note
// naming the files kept. Kept-files notes among the abandoned rows go with the new version
// too: the files they name came from a version before this one and are still as it left
// them, restored or not (a restore undoes only this session's own changes).
func (c *core) branchFiles(sessionID string, at int64, restore bool) ([]store.NotePayload, error) {
	notes, err := c.keptNotesAfter(sessionID, at)
	if err != nil {
		return nil, err
	}
	files, err := c.abandoned(sessionID, at)
	if err != nil || len(files.Changed) == 0 {
		return notes, err
	}
	if restore {
		_, err := c.restore(sessionID, at+1, "", false, nil)
		return notes, err
	}
	return append(notes, store.NotePayload{Source: NoteSourceKeptFiles, Text: keptFilesNote(at, files.Changed)}), nil
}

// keptNotesAfter returns the kept-files notes of the session's rows after at.
func (c *core) keptNotesAfter(sessionID string, at int64) ([]store.NotePayload, error) {
	rows, err := c.db.ChunksAfter(c.context(), sessionID, at)
	if err != nil {
		return nil, err
	}
	var out []store.NotePayload
	for _, r := range rows {
		if r.Kind != store.KindNote {
			continue
		}
		var p store.NotePayload
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			return nil, fmt.Errorf("read note row %d of session %s: %w", r.Seq, sessionID, err)
		}
		if p.Source == NoteSourceKeptFiles {
			out = append(out, p)
		}
	}
	return out, nil
}

// keptFilesNote tells the model of a new version which files are not as they were at its
// branch point: the version it replaces changed them, and they were kept.
func keptFilesNote(at int64, changed []checkpoint.Restored) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This conversation was branched after row %d from a version that went on past it. "+
		"That version changed these files in the folder, and the person kept them as it left them, "+
		"so they are not as they were at row %d:", at, at)
	for _, r := range changed {
		fmt.Fprintf(&b, "\n- %s (%s)", r.Path, r.Change)
	}
	b.WriteString("\nRead a file again before relying on its contents.")
	return b.String()
}
