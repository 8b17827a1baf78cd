package loop_test

import (
	"context"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// What the person did to the model's world reaches it once, framed as Loopdesk's note, never as
// the person's words: a restore, a compaction summary ("a summary of rows a–b"), a note row.
// The requests are kept as a golden transcript (testdata/wire/loopdesk_notes.golden).
func TestLoopdeskNotesOnTheWire(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	sid := h.session()
	h.srv.Enqueue(fakeai.Text("First answer."))
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "first"}); res.Status != core.StopCompleted {
		t.Fatalf("%s", res.Status)
	}
	// A restore the person made between runs, then a compaction of the first exchange and a
	// note (as a reverted hunk leaves), all rows of the journal.
	if _, err := h.db.Append(ctx, sid, "", store.NewChunk{Kind: store.KindRestore, Payload: store.RestorePayload{
		ToSeq: 2, Restored: []store.RestoredPath{{Path: "a.txt", Change: "modified"}, {Path: "new.txt", Change: "created"}}}}); err != nil {
		t.Fatal(err)
	}
	h.srv.Enqueue(fakeai.Text("Second answer."))
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "second"}); res.Status != core.StopCompleted {
		t.Fatalf("%s", res.Status)
	}
	if _, err := h.db.Append(ctx, sid, "", store.NewChunk{Kind: store.KindSummary, Payload: store.SummaryPayload{Text: "We said hello twice.", ThroughSeq: 2}},
		store.NewChunk{Kind: store.KindNote, Payload: store.NotePayload{Source: "hunk_revert", Text: "The person reverted lines 3–4 of a.txt."}}); err != nil {
		t.Fatal(err)
	}
	h.srv.Enqueue(fakeai.Text("Third answer."))
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "third"}); res.Status != core.StopCompleted {
		t.Fatalf("%s", res.Status)
	}
	wireGolden(t, h, "loopdesk_notes")
}
