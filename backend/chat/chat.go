package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// DefaultTitle is the title store.CreateSession gives a session made without one: Start
// names such a session after its first prompt.
const DefaultTitle = "New session"

// Config is what differs between the front ends.
type Config struct {
	// Stack runs the sessions (its runner, database and checkpoint recorder).
	Stack *stack.Stack
	// Spec is a run of the session as the front end's configuration makes it, before the
	// session's own settings and the run's input are put over it: model, provider, approval
	// mode, limits, system prompt, sandbox. It may prepare the session (the window gives a
	// session without a folder a scratch one) and returns an error for a run that cannot
	// start (no model configured).
	Spec func(ctx context.Context, s store.Session) (loop.RunSpec, error)
	// Flags are the values the person named for this process (the command line's flags):
	// they beat the session's own approval mode and budgets.
	Flags config.Overrides
}

// Service is the use-case layer over one stack.
type Service struct{ cfg Config }

// New returns the layer over cfg.Stack.
func New(cfg Config) *Service { return &Service{cfg: cfg} }

// Run is a run's own input, put over the spec last.
type Run struct {
	Prompt string
	Images []store.ImageRef
	// Plan, when not nil, says whether the run plans; nil: the session's stored mode.
	Plan *bool
	// Edit, when not nil, sets what else the run is for (a command, a queued message, a
	// compaction, dropped images), after everything above.
	Edit func(*loop.RunSpec)
	// Before, when not nil, is called with the session the run is about to start in (a
	// fork's, for Edit and Regenerate), before anything of it is published: a front end
	// subscribes to that session's events there.
	Before func(sessionID string)
}

// Forked is a fork made by Edit or Regenerate and the run started in it.
type Forked struct {
	Session store.Session
	RunID   string
}

// Start starts a run of the session; see the package doc for where each value comes from.
// It returns the run's id.
func (s *Service) Start(ctx context.Context, sessionID string, r Run) (string, error) {
	db := s.cfg.Stack.DB
	sess, err := db.GetSession(ctx, sessionID)
	if err != nil {
		return "", err
	}
	spec, err := s.cfg.Spec(ctx, sess)
	if err != nil {
		return "", err
	}
	spec.SessionID = sessionID
	mode, err := db.GetSessionMode(ctx, sessionID)
	if err != nil {
		return "", err
	}
	spec.Plan = mode.Mode == store.ModePlan
	if r.Plan != nil {
		spec.Plan = *r.Plan
	}
	budgets, err := db.GetSessionBudgets(ctx, sessionID)
	if err != nil {
		return "", err
	}
	config.ApplySession(&spec, mode.Approve, budgets, s.cfg.Flags)
	spec.Prompt, spec.Images = r.Prompt, r.Images
	if r.Edit != nil {
		r.Edit(&spec)
	}
	if spec.CompactThrough == 0 && !spec.Resume {
		// A run that sends the stored rows as they are (a retry, a summary) adds nothing.
		if err := s.noteMemories(ctx, &spec, sess); err != nil {
			return "", err
		}
	}
	if r.Before != nil {
		r.Before(sessionID)
	}
	if spec.CompactThrough > 0 {
		// "Compact up to here": one summary call, a visible summary row, nothing else; the
		// rows stay stored.
		spec.Prompt, spec.Queued = "", nil
	}
	runID, err := s.cfg.Stack.Runner.Start(ctx, spec)
	if err != nil {
		return "", err
	}
	s.title(ctx, sess, spec.Prompt)
	return runID, nil
}

// title names an untitled session after the prompt of its run. A title is a nicety: a
// failed rename leaves the placeholder and fails nothing.
func (s *Service) title(ctx context.Context, sess store.Session, prompt string) {
	if prompt == "" || (sess.Title != "" && sess.Title != DefaultTitle) {
		return
	}
	_ = s.cfg.Stack.DB.RenameSession(context.WithoutCancel(ctx), sess.ID, core.Title(prompt))
}

// Send delivers text to the session: queued on its running run, which hands it to the
// model at the next tool boundary (or starts the next run with it), else as the prompt of a
// new run (r's other fields apply to that run). It returns the id of the run that takes it.
func (s *Service) Send(ctx context.Context, sessionID, text string, r Run) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", fmt.Errorf("%w: the message is empty", stack.ErrInvalidInput)
	}
	runner := s.cfg.Stack.Runner
	for range 3 {
		// A message queued on a running run passes the UserPromptSubmit hooks in Queue (a
		// new run's prompt passes them in Start).
		if _, err := runner.Queue(ctx, sessionID, text); err == nil {
			runID, _ := runner.Running(sessionID)
			return runID, nil
		} else if !errors.Is(err, loop.ErrNotRunning) {
			return "", err
		}
		r.Prompt = text
		runID, err := s.Start(ctx, sessionID, r)
		if !errors.Is(err, loop.ErrBusy) {
			return runID, err
		}
		// A run started between the two tries (the queue's own next run): queue on it.
	}
	return "", fmt.Errorf("send a message to session %s: %w", sessionID, loop.ErrBusy)
}

// Queued lists the session's queued messages: those waiting for the running run's next tool
// boundary, or, with no run going, those a stopped run left (shown again after a crash or a
// restart). The store is the truth for both: a message is stored before the runner's Queue
// returns, and removed before its Withdraw returns or in the transaction of the row that
// delivers it.
func (s *Service) Queued(ctx context.Context, sessionID string) ([]core.QueuedMessage, error) {
	stored, err := s.cfg.Stack.DB.Queued(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return store.CoreQueue(stored, ""), nil
}

// Unqueue takes back a queued message: from the running run, or, with no run going, from
// the store ("Remove" beside the message box after a Stop or a restart). It reports false
// when it was not queued (delivered: then it is a row). The context its hooks added is
// stored with the message, so it goes with it.
func (s *Service) Unqueue(ctx context.Context, sessionID, id string) (bool, error) {
	if ok, err := s.cfg.Stack.Runner.Withdraw(ctx, sessionID, id); err != nil || ok {
		return ok, err
	}
	return s.cfg.Stack.DB.Dequeue(ctx, sessionID, id)
}

// Stop cancels the session's run; it reports whether one was going.
func (s *Service) Stop(sessionID string) bool { return s.cfg.Stack.Runner.Cancel(sessionID) }

// Fork copies the session's rows 1..seq into a new session (its lineage kept).
func (s *Service) Fork(ctx context.Context, sessionID string, seq int64) (store.Session, error) {
	return s.cfg.Stack.DB.Fork(ctx, sessionID, seq)
}
