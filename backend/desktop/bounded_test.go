package desktop_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// The window's actions on a part of a long session read that part, not the session: find
// beyond the rows shown, undo a compaction, and the edit and regenerate dialogs' question of
// where they fork. Each would read all 20,001 rows if it read the session.
func TestActionsOnALongSessionReadAPartOfIt(t *testing.T) {
	app := newTestApp(t, "")
	ctx := context.Background()
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := app.db.StartRunWith(ctx, store.NewRun{SessionID: s.ID, Model: "m", Limits: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	var rows []store.NewChunk
	summary, quetzal := int64(0), 0
	for i := range 5000 { // 20,000 rows, a compaction every 400
		id := fmt.Sprintf("c%d", i)
		word := "ordinary"
		if i == 4990 {
			word, quetzal = "Quetzal", len(rows)
		}
		rows = append(rows, store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: fmt.Sprintf("step %d, an %s one", i, word)}},
			store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{ToolCalls: []store.ToolCall{{ID: id, Name: "read_file", Arguments: `{}`}}}},
			store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: id, Name: "read_file", Content: "ok"}},
			store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{Text: "done"}})
		if i%100 == 99 && i < 4900 {
			rows = append(rows, store.NewChunk{Kind: store.KindSummary, Payload: store.SummaryPayload{Text: "so far", ThroughSeq: int64(len(rows))}})
			summary = int64(len(rows))
		}
	}
	stored, err := app.db.Append(ctx, s.ID, run.ID, rows...)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := app.db.FinishRun(ctx, run.ID, store.RunResult{Status: "completed"}); err != nil {
		t.Fatal(err)
	}
	lastUser, found := stored[len(stored)-4].Seq, stored[quetzal].Seq
	reads := func(what string, bound int64, f func() error) {
		t.Helper()
		before := app.db.RowsRead()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if n := app.db.RowsRead() - before; n > bound {
			t.Errorf("%s read %d rows, want at most %d", what, n, bound)
		}
	}
	reads("find", 1, func() error {
		got, err := app.FindInSession(s.ID, "quetzal", lastUser-10, lastUser)
		if err == nil && (len(got) != 1 || got[0] != found) {
			t.Errorf("found %v, want row %d", got, found)
		}
		return err
	})
	reads("undo a compaction", 60, func() error { return app.UndoCompaction(s.ID, summary) })
	reads("where an edit forks", 1, func() error { _, err := app.EditFiles(s.ID, lastUser); return err })
	reads("where a regeneration forks", 40, func() error { _, err := app.RegenerateFiles(s.ID, lastUser+3); return err })
}
