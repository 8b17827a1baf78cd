package stack

import (
	"context"
	"io"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

// ExportSession writes a session as JSON Lines: the store's lines (the session, its rows,
// runs and images) and the checkpoint's (its change records, hunk reviews and, with
// contents, the file contents those changes name). The window and `loopdesk sessions
// export` both write through it, so each reads what the other wrote.
func ExportSession(ctx context.Context, db *store.DB, id string, w io.Writer, contents bool) error {
	return checkpoint.Export(ctx, db, id, w, contents)
}

// ImportSession reads any export of ExportSession (with or without contents) or a plain
// store export into a new session, and returns it. It is the one import: the store's own
// Import refuses the checkpoint's lines, so no front end may call it. A bad file is
// store.ErrBadImport naming the line, and nothing is written.
func ImportSession(ctx context.Context, db *store.DB, r io.Reader) (store.Session, error) {
	return checkpoint.Import(ctx, db, r)
}
