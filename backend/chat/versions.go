package chat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Files says what Edit and Regenerate do with the files the abandoned rows changed.
type Files int

const (
	// FilesKeep leaves them as they are; the new run's first request names them.
	FilesKeep Files = iota
	// FilesRestore restores them to before the branch point first.
	FilesRestore
)

// Retryable are the ends of a run that Retry runs again from: the model failed or the run
// was stopped before it finished, so the last message has no complete answer.
var Retryable = []core.StopReason{core.StopProviderError, core.StopTimeout, core.StopError, core.StopCancelled,
	core.StopReason(store.RunInterrupted)}

// Edit forks the session just before the person's message at seq, sends text as the new
// message in the fork and starts a run there (r's Prompt is text).
func (s *Service) Edit(ctx context.Context, sessionID string, seq int64, text string, files Files, r Run) (Forked, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Forked{}, fmt.Errorf("%w: the message is empty", stack.ErrInvalidInput)
	}
	at, err := s.EditPoint(ctx, sessionID, seq)
	if err != nil {
		return Forked{}, err
	}
	r.Prompt = text
	return s.branch(ctx, sessionID, at, store.ForkEdited, files, r)
}

// Regenerate forks the session just before the run that produced the reply at seq (0: the
// session's last reply), keeping the message that run answered, and runs again there.
func (s *Service) Regenerate(ctx context.Context, sessionID string, seq int64, files Files, r Run) (Forked, error) {
	at, err := s.RegeneratePoint(ctx, sessionID, seq)
	if err != nil {
		return Forked{}, err
	}
	return s.branch(ctx, sessionID, at, store.ForkRegenerated, files, resumed(r))
}

// Retry runs the session again from its stored rows after a run that ended as Retryable
// says; r's Prompt is ignored. It returns the new run's id.
func (s *Service) Retry(ctx context.Context, sessionID string, r Run) (string, error) {
	runs, err := s.cfg.Stack.DB.ListRuns(ctx, sessionID)
	if err != nil {
		return "", err
	}
	if len(runs) == 0 {
		return "", fmt.Errorf("%w: the session has no run to retry", stack.ErrInvalidInput)
	}
	if last := runs[len(runs)-1]; !slices.Contains(Retryable, core.StopReason(last.Status)) {
		return "", fmt.Errorf("%w: the last run ended %s; there is nothing to retry", stack.ErrInvalidInput, last.Status)
	}
	return s.Start(ctx, sessionID, resumed(r))
}

// EditPoint is where an edit of the person's message at seq forks: just before it.
func (s *Service) EditPoint(ctx context.Context, sessionID string, seq int64) (int64, error) {
	row, err := s.cfg.Stack.DB.Row(ctx, sessionID, seq)
	if err != nil {
		return 0, err
	}
	if row.Kind != store.KindUser {
		return 0, fmt.Errorf("%w: row %d is not a message of yours", stack.ErrInvalidInput, seq)
	}
	return seq - 1, nil
}

// RegeneratePoint is where a regeneration of the reply at seq (0: the last reply) forks: at
// the message that started the reply's run (kept in the fork), or just before the run when
// it started with no message (a retry or a regeneration itself).
func (s *Service) RegeneratePoint(ctx context.Context, sessionID string, seq int64) (int64, error) {
	db := s.cfg.Stack.DB
	if seq == 0 {
		last, err := db.LastReply(ctx, sessionID)
		if err == nil && last == 0 {
			_, err = db.GetSession(ctx, sessionID)
			if err == nil {
				err = fmt.Errorf("%w: session %s has no reply of the model to regenerate", stack.ErrInvalidInput, sessionID)
			}
		}
		if err != nil {
			return 0, err
		}
		seq = last
	}
	row, err := db.Row(ctx, sessionID, seq)
	if errors.Is(err, store.ErrSeqOutOfRange) || err == nil && (row.Kind != store.KindAssistant || row.RunID == "") {
		return 0, fmt.Errorf("%w: row %d is not a reply of the model", stack.ErrInvalidInput, seq)
	}
	if err != nil {
		return 0, err
	}
	first, err := db.RunStart(ctx, sessionID, row.RunID)
	if err != nil {
		return 0, err
	}
	if first.Kind == store.KindUser {
		return first.Seq, nil
	}
	return first.Seq - 1, nil
}

// branch deals with the folder (branchFiles), forks the session with the rows 1..at (a
// version of kind, which its title names) and starts r in the fork. A fork whose run cannot
// start (no model configured, a bad folder) is deleted again.
func (s *Service) branch(ctx context.Context, sessionID string, at int64, kind store.ForkKind, files Files, r Run) (Forked, error) {
	notes, err := s.branchFiles(ctx, sessionID, at, files)
	if err != nil {
		return Forked{}, err
	}
	db := s.cfg.Stack.DB
	fork, err := db.ForkBefore(ctx, sessionID, at+1, kind)
	if err != nil {
		return Forked{}, err
	}
	edit := r.Edit
	r.Edit = func(spec *loop.RunSpec) {
		spec.Notes = append(spec.Notes, notes...)
		if edit != nil {
			edit(spec)
		}
	}
	runID, err := s.Start(ctx, fork.ID, r)
	if err != nil {
		_ = db.DeleteSession(context.WithoutCancel(ctx), fork.ID) // the start's error is the one to report
		return Forked{}, err
	}
	if fork, err = db.GetSession(ctx, fork.ID); err != nil { // Start may have set its folder or title
		return Forked{}, err
	}
	return Forked{Session: fork, RunID: runID}, nil
}

// resumed is r as a run that sends no new prompt: it answers the session's stored rows as
// they are (a regenerated reply, a retried request), after r's own edit of the spec.
func resumed(r Run) Run {
	r.Prompt = ""
	edit := r.Edit
	r.Edit = func(spec *loop.RunSpec) {
		spec.Resume = true
		if edit != nil {
			edit(spec)
		}
	}
	return r
}
