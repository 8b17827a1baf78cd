package chat

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Started is a session StartNew made and the run it started there. Branch is the git
// branch of the session's own worktree ("" when it works in the same folder).
type Started struct {
	Session store.Session
	RunID   string
	Branch  string
}

// StartNew starts a run with text in a new session beside sessionID, which is not changed:
// the person stays where they are while the new session runs in the background. The new
// session has sessionID's provider, model and approval mode, and works in its folder —
// or, when checkpoints are on and that folder is in a git repository, in a worktree of its
// own (checkpoint.MakeForkFolder, as a fork with files gets: the repository's HEAD with the
// changes sessionID made applied, on branch loopdesk/<new id>), so two agents never write
// the same files. r's other fields apply to the run (r.Prompt is text).
//
// A new session whose folder or run cannot be made is deleted again (with its worktree):
// a failed start leaves nothing behind. Errors: stack.ErrInvalidInput for an empty
// message, store.ErrNotFound for a session that does not exist, and whatever making the
// worktree or starting the run returns.
func (s *Service) StartNew(ctx context.Context, sessionID, text string, r Run) (Started, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Started{}, fmt.Errorf("%w: the message is empty", stack.ErrInvalidInput)
	}
	db := s.cfg.Stack.DB
	from, err := db.GetSession(ctx, sessionID)
	if err != nil {
		return Started{}, err
	}
	mode, err := db.GetSessionMode(ctx, sessionID)
	if err != nil {
		return Started{}, err
	}
	ns, err := db.CreateSession(ctx, store.NewSession{Workspace: from.Workspace, Model: from.Model, Provider: from.Provider})
	if err != nil {
		return Started{}, fmt.Errorf("start a new session beside %s: %w", sessionID, err)
	}
	out := Started{Session: ns}
	undo := func() {
		ctx := context.WithoutCancel(ctx)
		if out.Branch != "" {
			_, _ = checkpoint.RemoveForkFolder(ctx, s.forksDir(), ns.ID) // best effort: the error below says what failed
		}
		_ = db.DeleteSession(ctx, ns.ID)
	}
	if err := s.ownWorktree(ctx, from, &out); err != nil {
		undo()
		return Started{}, fmt.Errorf("start a new session beside %s: %w", sessionID, err)
	}
	// Only the approval mode goes over: a new session starts executing, as any new one does.
	if err := s.copyApproval(ctx, ns.ID, mode); err != nil {
		undo()
		return Started{}, err
	}
	r.Prompt = text
	out.RunID, err = s.Start(ctx, ns.ID, r)
	if err != nil {
		undo()
		return Started{}, err
	}
	if got, err := db.GetSession(ctx, ns.ID); err == nil {
		out.Session = got // titled after the prompt, its folder set
	}
	return out, nil
}

// ownWorktree gives out's session a worktree of its own when from's folder is in a git
// repository and checkpoints are on; otherwise it shares from's folder.
func (s *Service) ownWorktree(ctx context.Context, from store.Session, out *Started) error {
	rec := s.cfg.Stack.Checkpoints
	if rec == nil || from.Workspace == "" || !checkpoint.InRepository(ctx, from.Workspace) {
		return nil
	}
	// Every change from made so far: the new session starts from the folder as from left it.
	ff, err := rec.MakeForkFolder(ctx, from.ID, math.MaxInt64, out.Session.ID, s.forksDir())
	if err != nil {
		return err
	}
	if err := s.cfg.Stack.DB.SetWorkspace(ctx, out.Session.ID, ff.Folder); err != nil {
		out.Branch = ff.Branch // so the undo removes the worktree and its branch
		return err
	}
	out.Session.Workspace, out.Branch = ff.Folder, ff.Branch
	return nil
}

func (s *Service) copyApproval(ctx context.Context, id string, from store.SessionMode) error {
	db := s.cfg.Stack.DB
	m, err := db.GetSessionMode(ctx, id)
	if err != nil {
		return err
	}
	if m.Approve == from.Approve {
		return nil
	}
	m.Approve = from.Approve
	return db.SetSessionMode(ctx, id, m)
}

// forksDir is where worktrees of new sessions go: beside forks with files (one folder per
// session, named by its id, so deleting the session with its folder removes it).
func (s *Service) forksDir() string { return checkpoint.ForksDir(s.cfg.Stack.DB.Path()) }
