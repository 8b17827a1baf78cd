package store_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

func chunkOf(t testing.TB, seq int64, kind store.Kind, payload any) store.Chunk {
	t.Helper()
	p, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	return store.Chunk{Seq: seq, Kind: kind, Payload: p}
}

// TestRowRefsMarkTheSummariesInEffect: the core cuts and finds the exchange in flight by the
// summaries the store folds (store.FoldsOf); an undone or superseded summary replaces nothing.
func TestRowRefsMarkTheSummariesInEffect(t *testing.T) {
	chunks := []store.Chunk{
		chunkOf(t, 1, store.KindUser, store.UserPayload{Text: "hi"}),
		chunkOf(t, 2, store.KindAssistant, store.AssistantPayload{Text: "hello"}),
		chunkOf(t, 3, store.KindSummary, store.SummaryPayload{Text: "a", ThroughSeq: 1}),
		chunkOf(t, 4, store.KindSummary, store.SummaryPayload{Text: "b", ThroughSeq: 2}),
		chunkOf(t, 5, store.KindSummary, store.SummaryPayload{Text: "c", ThroughSeq: 2, FromSeq: 1}),
		chunkOf(t, 6, store.KindSummary, store.SummaryPayload{Undoes: 5}),
	}
	refs, err := store.RowRefs(chunks)
	if err != nil {
		t.Fatal(err)
	}
	want := []core.RowRef{
		{Seq: 1, Kind: core.KindUser}, {Seq: 2, Kind: core.KindAssistant},
		{Seq: 3, Kind: core.KindSummary},                // superseded by row 4
		{Seq: 4, Kind: core.KindSummary, ThroughSeq: 2}, // the compaction in effect
		{Seq: 5, Kind: core.KindSummary},                // a set-aside, undone by row 6
		{Seq: 6, Kind: core.KindSummary},
	}
	for i, r := range refs {
		if r.Tokens != core.EstimateMessage(string(chunks[i].Payload)) {
			t.Errorf("row %d: %d tokens, want %d", r.Seq, r.Tokens, core.EstimateMessage(string(chunks[i].Payload)))
		}
		r.Tokens = 0
		if r != want[i] {
			t.Errorf("row %d: %+v, want %+v", r.Seq, r, want[i])
		}
	}
}

// BenchmarkRowRefs10k is what a run start adds for the core's view of a 10,000-row session.
func BenchmarkRowRefs10k(b *testing.B) {
	chunks := make([]store.Chunk, 10000)
	for i := range chunks {
		chunks[i] = chunkOf(b, int64(i+1), store.KindToolResult, store.ToolResultPayload{CallID: fmt.Sprint(i), Content: string(make([]byte, 180))})
	}
	b.ResetTimer()
	for range b.N {
		if _, err := store.RowRefs(chunks); err != nil {
			b.Fatal(err)
		}
	}
}
