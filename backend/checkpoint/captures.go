package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Captures are one run's captures of calls that may change files, by call id, until the
// call's result row is stored (driver duties 2 and 3, doc.go). The run's tool workers add;
// the goroutine that stores the run's rows finishes them. The zero value is ready.
type Captures struct {
	mu     sync.Mutex
	byCall map[string]*Capture
}

// Add holds the capture of call callID until its result row is stored.
func (s *Captures) Add(callID string, c *Capture) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byCall == nil {
		s.byCall = map[string]*Capture{}
	}
	s.byCall[callID] = c
}

// Finish records, for each stored tool result whose call was captured, what the call
// changed, linked to that row, and returns the files_changed events to publish. The caller
// calls it before it publishes the rows (a page that reads what a call changed when its
// result row arrives must find the record) and publishes these after the rows. A call whose
// changes could not be recorded is in the error returned (every other call is recorded
// still): the record of what it changed is lost, so the caller stops the run.
func (s *Captures) Finish(ctx context.Context, rows []store.Chunk) ([]FilesChangedPayload, error) {
	var out []FilesChangedPayload
	var errs []error
	for _, row := range rows {
		if row.Kind != store.KindToolResult {
			continue
		}
		var p store.ToolResultPayload
		if json.Unmarshal(row.Payload, &p) != nil {
			continue
		}
		s.mu.Lock()
		capt := s.byCall[p.CallID]
		delete(s.byCall, p.CallID)
		s.mu.Unlock()
		if capt == nil {
			continue
		}
		changes, err := capt.After(ctx, row.Seq)
		if err != nil {
			errs = append(errs, fmt.Errorf("record the changes of call %s of session %s: %w", p.CallID, row.SessionID, err))
			continue
		}
		if len(changes) > 0 {
			out = append(out, FilesChangedPayload{RowSeq: row.Seq, CallID: p.CallID, Changes: changes})
		}
	}
	return out, errors.Join(errs...)
}

// Abort lets go of captures whose call never got a result row (none should remain once the
// run's end has answered every call; this keeps the folder's captures from waiting forever).
func (s *Captures) Abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, capt := range s.byCall {
		capt.Abort()
		delete(s.byCall, id)
	}
}

// FilesChangedPayload is the files_changed event: what the call answered by row RowSeq
// changed in the folder. (Not "seq": events are flat, and seq is the event's own sequence number.)
type FilesChangedPayload struct {
	RowSeq  int64    `json:"row_seq"`
	CallID  string   `json:"call_id"`
	Changes []Change `json:"changes"`
}

func (FilesChangedPayload) Type() core.EventType { return core.EventFilesChanged }
