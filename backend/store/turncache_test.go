package store_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// The cache gives what Turns gives, step by step as rows are appended, across a compaction
// and its undo (which make it derive everything again).
func TestTurnCacheMatchesTurns(t *testing.T) {
	db, _ := openTemp(t)
	s := mustSession(t, db, "t")
	call := store.ToolCall{ID: "c1", Name: "ls", Arguments: "{}"}
	steps := [][]store.NewChunk{
		{user("go")},
		{assistant("look", call)},
		{{Kind: store.KindApproval, Payload: store.ApprovalPayload{CallID: "c1", Tool: "ls", Decision: "approved", By: "mode:auto"}}, result("c1", "ls", "a b")},
		{assistant("done")},
		{summaryRow(store.SummaryPayload{Text: "We listed.", ThroughSeq: 5})},
		{user("more")},
		{summaryRow(store.SummaryPayload{Text: "Undone.", ThroughSeq: 5, Undoes: 6})},
		{user("again")},
	}
	var tc store.TurnCache
	for i, step := range steps {
		mustAppend(t, db, s.ID, "", step...)
		rows, err := db.Chunks(context.Background(), s.ID)
		if err != nil {
			t.Fatal(err)
		}
		want, err := store.Turns(rows)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tc.Turns(rows)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || cap(got) != len(got) {
			t.Fatalf("step %d: cached %+v\nwant %+v", i, got, want)
		}
	}
}
