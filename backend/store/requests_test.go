package store

import (
	"encoding/json"
	"testing"
)

func rowOf(seq int64, kind Kind, payload any) Chunk {
	b, _ := json.Marshal(payload)
	return Chunk{Seq: seq, Kind: kind, Payload: b}
}

// The estimate kept between runs equals the whole session's, as rows are added and when a
// compaction changes what the earlier rows send.
func TestSessionEstimateGrowsWithTheRows(t *testing.T) {
	var rc RequestCache
	rows := []Chunk{
		rowOf(1, KindUser, UserPayload{Text: "read the long file please"}),
		rowOf(2, KindAssistant, AssistantPayload{Text: "", ToolCalls: []ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}}}),
		rowOf(3, KindToolResult, ToolResultPayload{CallID: "c1", Name: "read_file", Content: "lorem ipsum dolor sit amet, many times over"}),
		rowOf(4, KindAssistant, AssistantPayload{Text: "It is filler text."}),
	}
	check := func(n int, system string) {
		t.Helper()
		got, err := rc.Estimate(rows[:n], system)
		want, _ := EstimateContext(rows[:n], system)
		if err != nil || got != want {
			t.Fatalf("after %d rows: estimate %d (%v), the whole session's %d", n, got, err, want)
		}
	}
	check(2, "be brief")
	check(4, "be brief, and kind") // a new system prompt, two rows more
	rows = append(rows, rowOf(5, KindSummary, SummaryPayload{Text: "We read a.", ThroughSeq: 4}),
		rowOf(6, KindUser, UserPayload{Text: "and now?"}))
	check(6, "be brief")
	rows = append(rows, rowOf(7, KindAssistant, AssistantPayload{Text: "Done."}))
	check(7, "")
}
