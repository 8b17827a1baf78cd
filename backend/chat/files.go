package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/store"
)

// NoteSourceKeptFiles is the source of the note a version's run starts with when the files
// the abandoned rows changed were kept.
const NoteSourceKeptFiles = "kept_files"

// Abandoned is what the rows after a branch point changed in the folder.
type Abandoned struct {
	// Changed are the files not as they were before the abandoned rows (what a restore
	// brings back), with the change a restore undoes.
	Changed []checkpoint.Restored
	// Conflicts are the changed files someone else changed since: a restore refuses them.
	Conflicts []checkpoint.Conflict
	// Restorable: checkpoints are on, the rows changed files, and nothing (a running call,
	// the folder gone) prevents a restore.
	Restorable bool
}

// Abandoned lists the files the session's rows after at changed. A dry run of the restore
// says which are still changed and which conflict; when it cannot run (a call in flight, the
// folder gone) nothing is restorable and the rows' recorded changes are listed instead.
func (s *Service) Abandoned(ctx context.Context, sessionID string, at int64) (Abandoned, error) {
	out := Abandoned{Changed: []checkpoint.Restored{}, Conflicts: []checkpoint.Conflict{}}
	rec := s.cfg.Stack.Checkpoints
	if rec == nil {
		return out, nil
	}
	if _, running := s.cfg.Stack.Runner.Running(sessionID); !running {
		plan, err := rec.Restore(ctx, sessionID, checkpoint.RestoreOptions{ToSeq: at + 1, DryRun: true})
		switch {
		case errors.Is(err, checkpoint.ErrNotFound):
			return out, nil
		case err == nil:
			out.Changed = append(out.Changed, plan.Restored...)
			out.Conflicts = append(out.Conflicts, plan.Conflicts...)
			out.Restorable = len(out.Changed) > 0
			return out, nil
		}
	}
	cs, err := rec.Changes(ctx, sessionID)
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

// branchFiles deals with the folder before a version forked at at starts: with
// FilesRestore, the files the rows after at changed go back to before them (a restore row
// of the session; a conflict is returned and nothing changes); otherwise the version's run
// starts with a note naming the files kept. Kept-files notes among the abandoned rows go
// with the new version too: the files they name came from a version before this one and are
// still as it left them, restored or not (a restore undoes only this session's own changes).
func (s *Service) branchFiles(ctx context.Context, sessionID string, at int64, files Files) ([]store.NotePayload, error) {
	notes, err := s.keptNotesAfter(ctx, sessionID, at)
	if err != nil {
		return nil, err
	}
	ab, err := s.Abandoned(ctx, sessionID, at)
	if err != nil || len(ab.Changed) == 0 {
		return notes, err
	}
	if files == FilesRestore {
		return notes, s.restore(ctx, sessionID, at+1)
	}
	return append(notes, store.NotePayload{Source: NoteSourceKeptFiles, Text: keptFilesNote(at, ab.Changed)}), nil
}

// restore brings the session's files back to before row toSeq and publishes the restore
// row the way the runner publishes its own.
func (s *Service) restore(ctx context.Context, sessionID string, toSeq int64) error {
	st := s.cfg.Stack
	if _, running := st.Runner.Running(sessionID); running {
		return fmt.Errorf("restore files of session %s: %w: stop it or wait for it to finish", sessionID, loop.ErrBusy)
	}
	plan, err := st.Checkpoints.Restore(ctx, sessionID, checkpoint.RestoreOptions{ToSeq: toSeq})
	if err != nil || plan.Seq == 0 {
		return err
	}
	rows, err := st.DB.ChunksAfter(ctx, sessionID, plan.Seq-1)
	if err != nil || len(rows) == 0 {
		return nil // the restore is done; the page re-reads the rows when it opens the session
	}
	_, _ = st.Runner.Bus().Publish(ctx, bus.Event{SessionID: sessionID, Payload: bus.RowsStoredPayload{Rows: bus.RowsOf(rows)}})
	return nil
}

// keptNotesAfter returns the kept-files notes of the session's rows after at.
func (s *Service) keptNotesAfter(ctx context.Context, sessionID string, at int64) ([]store.NotePayload, error) {
	rows, err := s.cfg.Stack.DB.ChunksAfter(ctx, sessionID, at)
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
