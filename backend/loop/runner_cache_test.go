package loop

import (
	"encoding/json"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

func row(seq int64, kind store.Kind, payload any) store.Chunk {
	b, _ := json.Marshal(payload)
	return store.Chunk{Seq: seq, Kind: kind, Payload: b}
}

// The estimate kept between runs equals the whole session's, as rows are added and when a
// compaction changes what the earlier rows send.
func TestSessionEstimateGrowsWithTheRows(t *testing.T) {
	var rc requestCache
	rows := []store.Chunk{
		row(1, store.KindUser, store.UserPayload{Text: "read the long file please"}),
		row(2, store.KindAssistant, store.AssistantPayload{Text: "", ToolCalls: []store.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}}}),
		row(3, store.KindToolResult, store.ToolResultPayload{CallID: "c1", Name: "read_file", Content: "lorem ipsum dolor sit amet, many times over"}),
		row(4, store.KindAssistant, store.AssistantPayload{Text: "It is filler text."}),
	}
	check := func(n int, system string) {
		t.Helper()
		got, err := rc.estimate(rows[:n], system)
		want, _ := EstimateContext(rows[:n], system)
		if err != nil || got != want {
			t.Fatalf("after %d rows: estimate %d (%v), the whole session's %d", n, got, err, want)
		}
	}
	check(2, "be brief")
	check(4, "be brief, and kind") // a new system prompt, two rows more
	rows = append(rows, row(5, store.KindSummary, store.SummaryPayload{Text: "We read a.", ThroughSeq: 4}),
		row(6, store.KindUser, store.UserPayload{Text: "and now?"}))
	check(6, "be brief")
	rows = append(rows, row(7, store.KindAssistant, store.AssistantPayload{Text: "Done."}))
	check(7, "")
}
