package cli

import (
	"context"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

// forkFlags are `sessions fork --with-files` and `sessions delete --remove-folder`.
type forkFlags struct {
	withFiles    bool
	removeFolder bool
}

// forkWithFiles forks id at c.at and gives the fork its own checkout
// (checkpoint.MakeForkFolder). When the folder cannot be made the fork
// session is deleted again: nothing half-made stays.
func (c *sessCmd) forkWithFiles(ctx context.Context, db *store.DB, dbPath, id string) error {
	rec, err := recorder(ctx, db)
	if err != nil {
		return err
	}
	defer rec.Close()
	fork, err := db.Fork(ctx, id, c.at)
	if err != nil {
		return err
	}
	ff, err := rec.MakeForkFolder(ctx, id, c.at, fork.ID, checkpoint.ForksDir(dbPath))
	if err == nil {
		err = db.SetWorkspace(ctx, fork.ID, ff.Folder)
	}
	if err != nil {
		checkpoint.RemoveForkFolder(ctx, checkpoint.ForksDir(dbPath), fork.ID)
		db.DeleteSession(ctx, fork.ID)
		return err
	}
	human := fmt.Sprintf("forked %s at %d: %s\nfolder: %s\n", id, c.at, fork.ID, ff.Folder)
	if ff.Branch != "" {
		human += "branch: " + ff.Branch + "\n"
	}
	return c.emit(ff, human)
}

// delete deletes a session. With --remove-folder the fork folder Loopdesk
// made for it goes too (refused, with nothing deleted, for a folder it did
// not make); without, a fork folder is kept and the command says where.
func (c *sessCmd) delete(ctx context.Context, db *store.DB, dbPath, id string) error {
	s, err := db.GetSession(ctx, id)
	if err != nil {
		return err
	}
	forks := checkpoint.ForksDir(dbPath)
	root := checkpoint.ForkRootOf(forks, s)
	if c.fk.removeFolder && root == "" {
		return fmt.Errorf("--remove-folder: %s is not a fork folder Loopdesk made (it removes only those); nothing was deleted", s.Workspace)
	}
	if err := db.DeleteSession(ctx, id); err != nil {
		return err
	}
	out := struct {
		Deleted string `json:"deleted"`
		Removed string `json:"removed_folder,omitempty"`
		Kept    string `json:"kept_folder,omitempty"`
	}{Deleted: id}
	human := fmt.Sprintf("deleted %s\n", id)
	switch {
	case c.fk.removeFolder:
		if out.Removed, err = checkpoint.RemoveForkFolder(ctx, forks, id); err != nil {
			return fmt.Errorf("deleted session %s, but its folder: %w", id, err)
		}
		human += fmt.Sprintf("removed its folder %s\n", out.Removed)
	case root != "":
		out.Kept = root
		human += fmt.Sprintf("its folder is kept: %s (remove it with --remove-folder, or delete the folder)\n", root)
	}
	if c.json {
		return sessJSONLine(c.stdout, out)
	}
	_, err = fmt.Fprint(c.stdout, human)
	return err
}
