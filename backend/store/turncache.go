package store

import (
	"encoding/json"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/provider"
)

// TurnCache derives a session's messages (Turns) from its rows incrementally: rows are
// append-only, so when the rows given extend the rows of the last call and none of the new
// ones is a summary (a compaction, a set-aside or an undo) or an image exclusion, only the new rows are decoded.
// Anything else is derived again from all rows. It is not safe for concurrent use.
type TurnCache struct {
	n       int   // rows the messages were derived from
	lastSeq int64 // seq of the last of them
	msgs    []provider.Message
}

// Turns returns Turns(chunks), decoding only what changed since the last call. The returned
// slice's capacity is its length, so a caller appending to it never writes into the cache.
func (tc *TurnCache) Turns(chunks []Chunk) ([]provider.Message, error) {
	if !tc.extends(chunks) {
		msgs, err := Turns(chunks)
		if err != nil {
			*tc = TurnCache{}
			return nil, err
		}
		tc.set(chunks, msgs)
		return msgs[:len(msgs):len(msgs)], nil
	}
	msgs := tc.msgs
	for _, c := range chunks[tc.n:] {
		if c.Kind == KindApproval || c.Kind == KindUsage || c.Kind == KindHook {
			continue
		}
		m, err := rowTurn(c)
		if err != nil {
			*tc = TurnCache{}
			return nil, fmt.Errorf("messages: row %d (%s): %w", c.Seq, c.Kind, err)
		}
		msgs = append(msgs, m)
	}
	tc.set(chunks, msgs)
	return msgs[:len(msgs):len(msgs)], nil
}

// extends reports whether chunks are the cached rows plus new rows none of which is a summary.
func (tc *TurnCache) extends(chunks []Chunk) bool {
	if tc.n == 0 || len(chunks) < tc.n || chunks[tc.n-1].Seq != tc.lastSeq {
		return false
	}
	for _, c := range chunks[tc.n:] {
		if c.Kind == KindSummary || c.Kind == KindImageExcluded {
			return false // it changes what earlier rows send
		}
	}
	return true
}

// rowTurn is the message of one row that no summary folds (Turns puts a system row where it
// is, like any other).
func rowTurn(c Chunk) (provider.Message, error) {
	if c.Kind != KindSystem {
		return turn(c, nil) // a new user row has no exclusion yet: they name earlier rows
	}
	var p SystemPayload
	if err := json.Unmarshal(c.Payload, &p); err != nil {
		return provider.Message{}, err
	}
	return provider.Message{Role: provider.RoleSystem, Text: p.Text}, nil
}

func (tc *TurnCache) set(chunks []Chunk, msgs []provider.Message) {
	tc.n, tc.msgs = len(chunks), msgs
	if len(chunks) > 0 {
		tc.lastSeq = chunks[len(chunks)-1].Seq
	}
}
