package desktop

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"

	"github.com/loopdesk/loopdesk/backend/chat"
	"github.com/loopdesk/loopdesk/backend/store"
)

// ListArchived returns the archived sessions, most recently updated first: the list's
// "Show archived".
func (s *Sessions) ListArchived() ([]SessionSummary, error) {
	return s.summaries(store.ListFilter{Archived: true})
}

func (s *Sessions) summaries(f store.ListFilter) ([]SessionSummary, error) {
	ss, err := s.c.db.ListSessionsBy(s.c.context(), f)
	if err != nil {
		return nil, err
	}
	out := make([]SessionSummary, len(ss))
	for i, x := range ss {
		out[i] = SessionSummary{Session: s.c.view(x), Running: s.c.running(x.ID)}
	}
	return out, nil
}

// ArchiveSessions archives (archived true) or brings back the sessions, all or none.
func (s *Sessions) ArchiveSessions(ids []string, archived bool) error {
	return s.c.db.SetArchived(s.c.context(), ids, archived)
}

// MoveToProject puts the sessions in project ("" for none), all or none.
func (s *Sessions) MoveToProject(ids []string, project string) error {
	return s.c.db.SetProject(s.c.context(), ids, project)
}

// Projects lists the project names in use, sorted.
func (s *Sessions) Projects() ([]string, error) { return s.c.db.Projects(s.c.context()) }

// DeleteSessions deletes each session (chat.DeleteSession: rows, images, checkpoints, and the
// fork folder Loopdesk made for it unless that holds work of its own) and says what went and
// what stayed. It stops at the first that cannot go (one running, for one). The space comes
// back in the background, in small steps.
func (s *Sessions) DeleteSessions(ids []string) ([]chat.Deleted, error) {
	ctx := s.c.context()
	out := []chat.Deleted{}
	defer s.c.reclaim()
	for _, id := range ids {
		d, err := chat.DeleteSession(ctx, s.c.db, id, chat.DeleteOptions{Busy: s.c.running})
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
	return out, nil
}

// reclaiming is set while a Reclaim runs: deletes in a row share one.
var reclaiming atomic.Bool

func (c *core) reclaim() {
	if !reclaiming.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer reclaiming.Store(false)
		_, _ = c.db.Reclaim(context.WithoutCancel(c.context()))
	}()
}

// ExportSessions writes each session as JSON Lines into a folder the person picks, one file
// each (named as ExportSession names one). It returns the folder ("" when cancelled).
func (s *Sessions) ExportSessions(ids []string) (string, error) {
	dir, err := s.c.dialogs.ChooseFolder("Export sessions to")
	if err != nil || dir == "" {
		return "", err
	}
	for _, id := range ids {
		x, err := s.c.db.GetSession(s.c.context(), id)
		if err != nil {
			return "", err
		}
		if err := s.writeExport(id, filepath.Join(dir, exportName(x))); err != nil {
			return "", fmt.Errorf("export session %s: %w", id, err)
		}
	}
	return dir, nil
}

// SessionSize is what a session takes in the database.
func (s *Sessions) SessionSize(id string) (store.Size, error) {
	return s.c.db.SessionSize(s.c.context(), id)
}

// DatabaseSize is the database's files on disk, for Settings.
func (s *Sessions) DatabaseSize() (store.FileSize, error) { return s.c.db.FileSize(s.c.context()) }

// CompactDatabase rewrites the database without its free space (store.Compact), refused while
// a run goes; it returns the size after.
func (s *Sessions) CompactDatabase() (store.FileSize, error) {
	_, after, err := s.c.db.Compact(s.c.context())
	return after, err
}
