package loop

import (
	"context"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Checkpoints around tool calls (backend/checkpoint's driver duties 2 and 3): the "before"
// state is made durable before a call that may change files starts; once its result row is
// stored, what the call changed is recorded on that row and published as files_changed.

// capture takes the checkpoint of a call that may change files. It returns a note for the
// result when none could be taken: the call still runs, and its changes are not undoable.
// When the database failed under the record (its disk full, an I/O error, a page it could
// not read) it returns that error instead: the call must not run.
func (rn *run) capture(c core.Call) (string, error) {
	cp := rn.r.cfg.Checkpoints
	if t, known := rn.tools.infos[c.Name]; cp == nil || t.ReadOnly || !known {
		return "", nil // read-only, or unknown (the registry answers unknown_tool without running anything)
	}
	capt, err := cp.Before(rn.ctl.op, rn.spec.SessionID, rn.id, c.ID, rn.root)
	if store.Failing(err) {
		return "", err
	}
	if err != nil {
		rn.r.log.Warn("no checkpoint before a tool call", "session", rn.spec.SessionID, "call", c.ID, "err", err)
		return "\n[loopdesk: no checkpoint could be taken before this call (" + err.Error() + "); its changes cannot be restored]", nil
	}
	rn.caps.Add(c.ID, capt)
	return "", nil
}

// announce publishes rows just stored as rows_stored, then what their calls changed, which
// is recorded before the rows are announced. It returns the error of a call whose changes
// could not be recorded (the rows are announced all the same: they are stored).
func (rn *run) announce(ctx context.Context, added []store.Chunk) error {
	if len(added) == 0 {
		return nil
	}
	changed, err := rn.caps.Finish(ctx, added)
	rn.publish(bus.RowsStoredPayload{Rows: bus.RowsOf(added)})
	for _, c := range changed {
		rn.publish(c)
	}
	return err
}
