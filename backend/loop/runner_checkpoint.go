package loop

import (
	"context"
	"encoding/json"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Checkpoints around tool calls (backend/checkpoint's driver duties 2 and 3): the "before"
// state is made durable before a call that may change files starts; once its result row is
// stored, what the call changed is recorded on that row and published as files_changed.

// capture takes the checkpoint of a call that may change files. It returns a note for the
// result when none could be taken: the call still runs, and its changes are not undoable.
func (rn *run) capture(c core.Call) string {
	cp := rn.r.cfg.Checkpoints
	if t, known := rn.tools.infos[c.Name]; cp == nil || t.ReadOnly || !known {
		return "" // read-only, or unknown (the registry answers unknown_tool without running anything)
	}
	capt, err := cp.Before(rn.ctl.op, rn.spec.SessionID, rn.id, c.ID, rn.root)
	if err != nil {
		rn.r.log.Warn("no checkpoint before a tool call", "session", rn.spec.SessionID, "call", c.ID, "err", err)
		return "\n[loopdesk: no checkpoint could be taken before this call (" + err.Error() + "); its changes cannot be restored]"
	}
	rn.caps.mu.Lock()
	if rn.caps.byCall == nil {
		rn.caps.byCall = map[string]*checkpoint.Capture{}
	}
	rn.caps.byCall[c.ID] = capt
	rn.caps.mu.Unlock()
	return ""
}

// finishCaptures records, for each stored tool result whose call was captured, what the call
// changed, linked to that row, and returns the files_changed events to publish. The caller
// records them before it publishes the rows (a page that reads what a call changed when its
// result row arrives must find the record) and publishes these after the rows.
func (rn *run) finishCaptures(ctx context.Context, rows []store.Chunk) []FilesChangedPayload {
	var out []FilesChangedPayload
	for _, row := range rows {
		if row.Kind != store.KindToolResult {
			continue
		}
		var p store.ToolResultPayload
		if json.Unmarshal(row.Payload, &p) != nil {
			continue
		}
		rn.caps.mu.Lock()
		capt := rn.caps.byCall[p.CallID]
		delete(rn.caps.byCall, p.CallID)
		rn.caps.mu.Unlock()
		if capt == nil {
			continue
		}
		changes, err := capt.After(ctx, row.Seq)
		if err != nil {
			rn.r.log.Error("record a tool call's changes", "session", rn.spec.SessionID, "call", p.CallID, "err", err)
			continue
		}
		if len(changes) > 0 {
			out = append(out, FilesChangedPayload{RowSeq: row.Seq, CallID: p.CallID, Changes: changes})
		}
	}
	return out
}

// abortCaptures lets go of captures whose call never got a result row (none should remain once
// FinishRun has answered every call; this keeps the folder's captures from waiting forever).
func (rn *run) abortCaptures() {
	rn.caps.mu.Lock()
	defer rn.caps.mu.Unlock()
	for id, capt := range rn.caps.byCall {
		capt.Abort()
		delete(rn.caps.byCall, id)
	}
}

// FilesChangedPayload lists what the call answered by row RowSeq changed in the folder. (Not
// "seq": events are flat, and seq is the event's own sequence number.)
type FilesChangedPayload struct {
	RowSeq  int64               `json:"row_seq"`
	CallID  string              `json:"call_id"`
	Changes []checkpoint.Change `json:"changes"`
}

func (FilesChangedPayload) Type() core.EventType { return core.EventFilesChanged }
