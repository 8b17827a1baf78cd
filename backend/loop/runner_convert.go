package loop

import (
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The rows the runner makes itself, beside the core's (store.PayloadOf stores those).

// recordedRow is a row an extension recorded (RunInfo.Record), stored as it was made.
type recordedRow struct{ store.NewChunk }

// Kind implements Row.
func (r recordedRow) Kind() core.RowKind { return core.RowKind(r.NewChunk.Kind) }

// storePayload is the stored payload of a row of the run.
func storePayload(row core.Row) any {
	if r, ok := row.(recordedRow); ok {
		return r.Payload
	}
	return store.PayloadOf(row)
}
