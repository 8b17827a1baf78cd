package chat

import (
	"context"
	"errors"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Deleted says what deleting a session removed, and what it kept.
type Deleted struct {
	ID string `json:"deleted"`
	// Rows, Bytes and Images: the rows that went, the session's size (store.Size.Total) and
	// the images no other session showed.
	Rows   int64 `json:"rows"`
	Bytes  int64 `json:"bytes"`
	Images int   `json:"images"`
	// RemovedFolder is the fork folder Loopdesk made for the session, removed with its
	// worktree registration and Branch. KeptFolder is that folder when it holds work neither
	// committed nor brought back (KeptReason says which); it stays on disk.
	RemovedFolder string `json:"removed_folder,omitempty"`
	Branch        string `json:"branch,omitempty"`
	KeptFolder    string `json:"kept_folder,omitempty"`
	KeptReason    string `json:"kept_reason,omitempty"`
}

// DeleteOptions: Force removes the fork folder even with work in it (`sessions delete
// --remove-folder`), and refuses a session whose folder Loopdesk did not make; Busy says
// whether a run of the session is going in this process (the window's runner), beside the
// runs of other processes the store knows.
type DeleteOptions struct {
	Force bool
	Busy  func(id string) bool
}

// ErrNotForkFolder is a forced delete of a session whose folder Loopdesk did not make.
var ErrNotForkFolder = errors.New("not a fork folder Loopdesk made (it removes only those)")

// DeleteSession deletes a session with everything of it in the database (store.RemoveSession)
// and the fork folder Loopdesk made for it, with its worktree and branch, unless that holds
// work not committed nor brought back (checkpoint.KeepReason): then the folder stays and
// Deleted says why. A session with a run going is refused (loop.ErrBusy's store form,
// store.ErrSessionBusy). The space freed stays in the file until store.Reclaim.
func DeleteSession(ctx context.Context, db *store.DB, id string, o DeleteOptions) (Deleted, error) {
	out := Deleted{ID: id}
	s, err := db.GetSession(ctx, id)
	if err != nil {
		return out, err
	}
	if o.Busy != nil && o.Busy(id) {
		return out, fmt.Errorf("delete session %s: %w", id, store.ErrSessionBusy)
	}
	if err := db.CheckIdle(ctx, id); err != nil {
		return out, fmt.Errorf("delete session %s: %w", id, errors.Unwrap(err))
	}
	forks := checkpoint.ForksDir(db.Path())
	root := checkpoint.ForkRootOf(forks, s)
	if o.Force && root == "" {
		return out, fmt.Errorf("delete session %s: %s is %w; nothing was deleted", id, s.Workspace, ErrNotForkFolder)
	}
	if root != "" && !o.Force {
		parent := ""
		if p, err := db.GetSession(ctx, s.ParentID); err == nil {
			parent = p.Workspace
		}
		if out.KeptReason, err = checkpoint.KeepReason(ctx, root, parent); err != nil {
			return out, fmt.Errorf("delete session %s: %w; nothing was deleted", id, err)
		}
		if out.KeptReason != "" {
			out.KeptFolder = root
		}
	}
	rm, err := db.RemoveSession(ctx, id)
	if err != nil {
		return out, err
	}
	out.Rows, out.Bytes, out.Images = rm.Rows, rm.Size.Total, rm.Images
	if root == "" || out.KeptFolder != "" {
		return out, nil
	}
	worktree := checkpoint.IsWorktree(root)
	if out.RemovedFolder, err = checkpoint.RemoveForkFolder(ctx, forks, id); err != nil {
		return out, fmt.Errorf("deleted session %s, but its folder: %w", id, err)
	}
	if worktree {
		out.Branch = checkpoint.BranchOf(id)
	}
	return out, nil
}
