package journal

import (
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The rows a run stores beside the core's (store.PayloadOf stores those): rows an extension
// or a prompt's check made (loop.RunInfo.Record), stored as they were made.

// recorded is a row made outside the core, stored as it was made.
type recorded struct{ store.NewChunk }

// Kind implements core.Row.
func (r recorded) Kind() core.RowKind { return core.RowKind(r.NewChunk.Kind) }

// Recorded are rows made outside the core, as rows of the run.
func Recorded(chunks []store.NewChunk) []core.Row {
	out := make([]core.Row, len(chunks))
	for i, c := range chunks {
		out[i] = recorded{c}
	}
	return out
}

// Chunks converts rows for the store (which adds a delivered queued message's hook context
// after it).
func Chunks(rows []core.Row) []store.NewChunk {
	chunks := make([]store.NewChunk, len(rows))
	for i, row := range rows {
		chunks[i] = store.NewChunk{Kind: store.Kind(row.Kind()), Payload: payloadOf(row)}
	}
	return chunks
}

// payloadOf is the stored payload of a row of the run.
func payloadOf(row core.Row) any {
	if r, ok := row.(recorded); ok {
		return r.Payload
	}
	return store.PayloadOf(row)
}
