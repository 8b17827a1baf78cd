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

// commandRow is the prompt of a run started from a slash command: a user row that also
// records the command it was expanded from.
type commandRow struct {
	core.UserRow
	Command string
}

// storePayload is the stored payload of a row of the run.
func storePayload(row core.Row) any {
	switch r := row.(type) {
	case recordedRow:
		return r.Payload
	case commandRow:
		p := store.PayloadOf(r.UserRow).(store.UserPayload)
		p.Command = r.Command
		return p
	}
	return store.PayloadOf(row)
}
