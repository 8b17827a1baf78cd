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
