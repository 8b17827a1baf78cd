package core

import (
	"encoding/json"
	"testing"
	"time"
)

// run_finished (`run --json`, docs/cli.md) lists its fields in this order, the counters
// between output and started_at: Result embeds Counters and must print the same bytes as
// when it declared the seven fields itself.
func TestResultJSONKeepsItsShape(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	r := Result{Status: StopCompleted, Output: "done", Counters: Counters{Turns: 2, ToolCalls: 3, InputTokens: 1200,
		OutputTokens: 80, CacheReadTokens: 1000, CacheWriteTokens: 100, CostUSD: 0.5},
		StartedAt: at, EndedAt: at.Add(time.Second), SessionID: "s1", RunID: "r1"}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"status":"completed","output":"done","turns":2,"tool_calls":3,"input_tokens":1200,"output_tokens":80,` +
		`"cache_read_tokens":1000,"cache_write_tokens":100,"cost_usd":0.5,"started_at":"2026-12-01T10:00:00Z",` +
		`"ended_at":"2026-12-01T10:00:01Z","error":"","session_id":"s1","run_id":"r1"}`
	if string(b) != want {
		t.Fatalf("run_finished's result:\n got %s\nwant %s", b, want)
	}
}

// A child's spend adds to its parent's counters whole: cache tokens too, since they are
// parts of the input tokens that are added.
func TestCountersPlusAddsEveryCounter(t *testing.T) {
	a := Counters{Turns: 1, ToolCalls: 2, InputTokens: 100, OutputTokens: 10, CacheReadTokens: 50, CacheWriteTokens: 5, CostUSD: 0.25}
	b := Counters{Turns: 3, ToolCalls: 4, InputTokens: 200, OutputTokens: 20, CacheReadTokens: 60, CacheWriteTokens: 6, CostUSD: 0.5}
	want := Counters{Turns: 4, ToolCalls: 6, InputTokens: 300, OutputTokens: 30, CacheReadTokens: 110, CacheWriteTokens: 11, CostUSD: 0.75}
	if got := a.Plus(b); got != want {
		t.Fatalf("%+v + %+v = %+v, want %+v", a, b, got, want)
	}
	if !(Counters{}).IsZero() || want.IsZero() {
		t.Fatal("IsZero")
	}
}
