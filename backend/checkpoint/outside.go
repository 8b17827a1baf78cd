package checkpoint

import (
	"context"
	"database/sql"
	"errors"

	"github.com/loopdesk/loopdesk/backend/store"
)

// catchUp brings rs's cache up to date with the folder. Changes no call
// made since the last capture (the person's editor, a build, git) are
// recorded as outside edits of sessionID — a capture whose call id is
// "outside:<tag>", on the session's last row — so its file history tells
// them from the agent's. The first look at a folder records nothing: with
// no earlier state, every file would look created. then, when set, runs in
// the same transaction (Before records its capture there: one commit).
func (r *Recorder) catchUp(ctx context.Context, rs *rootState, sessionID, runID, tag string, then ...func(*sql.Tx) error) error {
	baseline := len(rs.cache) == 0
	ds, err := r.refresh(ctx, rs)
	if err != nil {
		return err
	}
	return r.commit(ctx, rs, ds, func(tx *sql.Tx) error {
		for _, fn := range then {
			if err := fn(tx); err != nil {
				return err
			}
		}
		if baseline || !anyChange(ds) {
			return nil
		}
		last, err := store.LastSeq(ctx, tx, sessionID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && last == 0) {
			return nil // no row to hang the changes on
		} else if err != nil {
			return err
		}
		return recordCapture(ctx, tx, sessionID, runID, "outside:"+tag, rs.path, last, r.opts.Now().UnixMilli(), ds)
	})
}

// caughtUp locks the folder root for a change of the person's (a restore, a hunk revert,
// applying a fork) with the changes made outside since recorded first, as such, so that
// conflicts are seen. The caller releases it.
func (r *Recorder) caughtUp(ctx context.Context, root, sessionID, runID, tag string) (*rootState, error) {
	rs, err := r.acquire(ctx, root)
	if err != nil {
		return nil, err
	}
	if err := r.catchUp(ctx, rs, sessionID, runID, tag); err != nil {
		rs.release()
		return nil, err
	}
	return rs, nil
}

func anyChange(ds []delta) bool {
	for _, d := range ds {
		if d.change != "" {
			return true
		}
	}
	return false
}

// recordCapture records ds as a finished capture on row seq.
func recordCapture(ctx context.Context, tx *sql.Tx, sessionID, runID, callID, root string, seq, now int64, ds []delta) error {
	res, err := tx.ExecContext(ctx, `INSERT INTO cp_captures(session_id, run_id, call_id, root, seq, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		sessionID, runID, callID, root, seq, now)
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	return insertChanges(ctx, tx, id, ds)
}

// personal marks changes the person asked for (a restore, a hunk revert).
func personal(cs []Change) []Change {
	for i := range cs {
		cs[i].By = ByPerson
	}
	return cs
}

// notOutside keeps a change query to what calls, restores and reverts did:
// restore plans and fork copies leave outside edits where they are (a
// restore still sees them as conflicts).
const notOutside = ` AND c.call_id NOT LIKE 'outside:%'`
