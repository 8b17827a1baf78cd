package chat

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/memory"
	"github.com/loopdesk/loopdesk/backend/store"
)

// noteMemories adds the run's memory note to spec, when one is due (core.NoteMemories): the
// memories in force for the run's folder and the person's, against those the session's last
// memory note carried. The note is a row of the session like any other: stored once, re-sent
// unchanged by every later request.
func (s *Service) noteMemories(ctx context.Context, spec *loop.RunSpec, sess store.Session) error {
	db := s.cfg.Stack.DB
	dir := spec.Workspace
	if dir == "" {
		dir = sess.Workspace
	}
	folder, err := memory.Folder(dir)
	if err != nil {
		return err
	}
	ms, err := db.MemoriesFor(ctx, folder)
	if err != nil {
		return fmt.Errorf("the memories of the run: %w", err)
	}
	last, noted, err := db.LastMemoryNote(ctx, sess.ID)
	if err != nil {
		return err
	}
	n, due := core.NoteMemories(last, noted, store.MemoryRefs(ms))
	if n.Warning != "" {
		slog.Warn("memories", "session", sess.ID, "folder", folder, "warning", n.Warning)
	}
	if due {
		spec.Notes = append(spec.Notes, store.NotePayload{Source: core.NoteSourceMemory, Text: n.Text, Memories: n.Carried})
	}
	return nil
}
