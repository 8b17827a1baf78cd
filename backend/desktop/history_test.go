package desktop_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// Opening a long session reads its last rows and the rows its next request carries (those
// since its last compaction), not the rest: the cost of opening does not grow with its length.
func TestOpenSessionTailReadsAPageOfALongSession(t *testing.T) {
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
	for i := range 1000 { // 3,000 rows, a compaction after row 2,700
		id := fmt.Sprintf("c%d", i)
		rows = append(rows, store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: fmt.Sprintf("step %d", i)}},
			store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{ToolCalls: []store.ToolCall{{ID: id, Name: "read_file", Arguments: `{}`}},
				Usage: &store.Usage{InputTokens: 10, OutputTokens: 1}}},
			store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: id, Name: "read_file", Content: "ok"}})
		if i == 899 {
			rows = append(rows, store.NewChunk{Kind: store.KindSummary, Payload: store.SummaryPayload{Text: "so far", ThroughSeq: 2700}})
		}
	}
	if _, err := app.db.Append(ctx, s.ID, run.ID, rows...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := app.db.FinishRun(ctx, run.ID, store.RunResult{Status: "completed"}); err != nil {
		t.Fatal(err)
	}

	before := app.db.RowsRead()
	v, err := app.OpenSessionTail(s.ID, 50)
	if err != nil {
		t.Fatal(err)
	}
	// 50 shown; the summary, the first row it replaced and the 300 rows after it for the
	// context meter.
	if read := app.db.RowsRead() - before; read != 50+302 {
		t.Errorf("opening read %d rows, want %d", read, 50+302)
	}
	if len(v.Rows) != 50 || v.Rows[0].Seq != 2952 || v.RowCount != 3001 || v.FirstSeq != 1 {
		t.Fatalf("opened %d rows from %d, count %d first %d", len(v.Rows), v.Rows[0].Seq, v.RowCount, v.FirstSeq)
	}
	meters := map[string]float64{}
	for _, m := range v.Meters {
		meters[string(m.Key)] = m.Value
	}
	if meters["turns"] != 1000 || meters["tool_calls"] != 1000 || meters["context"] <= 0 {
		t.Errorf("meters of the last run: %v", meters)
	}
	full, err := app.OpenSession(s.ID)
	if err != nil || len(full.Rows) != 3001 || fmt.Sprint(full.Meters) != fmt.Sprint(v.Meters) {
		t.Fatalf("every row: %d rows, meters %v want %v, %v", len(full.Rows), full.Meters, v.Meters, err)
	}

	page, err := app.RowsBefore(s.ID, v.Rows[0].Seq, 100)
	if err != nil || len(page) != 100 || page[0].Seq != 2852 || page[99].Seq != 2951 {
		t.Fatalf("the page before: %d rows, %v", len(page), err)
	}
	around, err := app.RowsAround(s.ID, 10, 10)
	if err != nil || len(around) != 10 || around[0].Seq != 5 || around[9].Seq != 14 {
		t.Fatalf("around row 10: %+v %v", around, err)
	}
	if _, err := app.RowsBefore("no-such-session", 5, 5); err == nil {
		t.Fatal("rows of a session that does not exist: no error")
	}
}
