package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

func summaryRow(p store.SummaryPayload) store.NewChunk {
	return store.NewChunk{Kind: store.KindSummary, Payload: p}
}

// "Undo compaction": a row that cancels a summary makes the next request carry the full rows
// again; undoing a later compaction brings back the one before it.
func TestUndoCompaction(t *testing.T) {
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	conversation(t, db, s.ID) // rows 1..6
	full := messagesOf(t, db, s.ID)
	mustAppend(t, db, s.ID, "", summaryRow(store.SummaryPayload{Text: "We read go.mod.", ThroughSeq: 5})) // 7
	if ms := messagesOf(t, db, s.ID); len(ms) != 2 || !strings.Contains(string(ms[0]), "We read go.mod.") {
		t.Fatalf("compacted: %s", ms)
	}
	mustAppend(t, db, s.ID, "", summaryRow(store.SummaryPayload{Text: "Compaction undone.", ThroughSeq: 5, Undoes: 7})) // 8
	got := messagesOf(t, db, s.ID)
	if len(got) != len(full) {
		t.Fatalf("after undo %d messages, the full rows are %d", len(got), len(full))
	}
	for i := range full {
		if string(got[i]) != string(full[i]) {
			t.Fatalf("message %d after undo: %s, want %s", i, got[i], full[i])
		}
	}
	// Two compactions; undoing the second brings back the first.
	mustAppend(t, db, s.ID, "", user("more"))                                                   // 9
	mustAppend(t, db, s.ID, "", summaryRow(store.SummaryPayload{Text: "first", ThroughSeq: 5})) // 10
	mustAppend(t, db, s.ID, "", summaryRow(store.SummaryPayload{Text: "second", ThroughSeq: 9}))
	mustAppend(t, db, s.ID, "", summaryRow(store.SummaryPayload{Text: "undone", ThroughSeq: 9, Undoes: 11}))
	ms := messagesOf(t, db, s.ID)
	if !strings.Contains(string(ms[0]), `\n\nfirst"`) || len(ms) != 3 {
		t.Fatalf("after undoing the second compaction: %s", ms)
	}
	// Rows stay stored and searchable whatever is folded.
	hits, err := db.Search(context.Background(), "example", 10)
	if err != nil || len(hits) == 0 {
		t.Fatalf("search after compaction: %v %v", hits, err)
	}
	// An undo must name an earlier row.
	if _, err := db.Append(context.Background(), s.ID, "", summaryRow(store.SummaryPayload{Text: "x", ThroughSeq: 5, Undoes: 99})); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("undo of a future row: %v", err)
	}
}

// A set-aside replaces one exchange (not the start of the session) by a note, keeps tool
// calls paired, and can be undone.
func TestSetAsideExchange(t *testing.T) {
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	mustAppend(t, db, s.ID, "", user("hello"))
	mustAppend(t, db, s.ID, "", store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{Text: "hi"}})
	conversation(t, db, s.ID) // rows 3..8, tool turn at 4..7
	if _, err := db.Append(context.Background(), s.ID, "", summaryRow(store.SummaryPayload{Text: "x", FromSeq: 5, ThroughSeq: 8})); !errors.Is(err, store.ErrUnpaired) {
		t.Fatalf("set-aside starting between a call and its result: %v", err)
	}
	mustAppend(t, db, s.ID, "", summaryRow(store.SummaryPayload{Text: "[set aside]", FromSeq: 3, ThroughSeq: 8})) // 9
	mustAppend(t, db, s.ID, "", user("next"))
	ms := messagesOf(t, db, s.ID)
	want := []string{`{"role":"user","content":"hello"}`, `{"role":"assistant","content":"hi"}`,
		`{"role":"user","content":"` + jsonText(store.Frame("[set aside]")) + `"}`, `{"role":"user","content":"next"}`}
	if len(ms) != len(want) {
		t.Fatalf("got %s", ms)
	}
	for i := range want {
		if string(ms[i]) != want[i] {
			t.Fatalf("message %d: %s want %s", i, ms[i], want[i])
		}
	}
	mustAppend(t, db, s.ID, "", summaryRow(store.SummaryPayload{Text: "undone", ThroughSeq: 8, Undoes: 9}))
	if ms := messagesOf(t, db, s.ID); len(ms) != 8 {
		t.Fatalf("after undoing the set-aside: %d messages %s", len(ms), ms)
	}
}

func TestSessionTotalsAndMode(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	if tot, err := db.SessionTotals(ctx, s.ID); err != nil || tot.Runs != 0 || tot.SessionID != s.ID {
		t.Fatalf("no runs: %+v %v", tot, err)
	}
	finishedRuns(t, db, s.ID)
	tot, err := db.SessionTotals(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := store.Totals{SessionID: s.ID, Runs: 3, Turns: 8, ToolCalls: 9, InputTokens: 10500, OutputTokens: 483, Cost: 0.1155}
	if tot.Runs != want.Runs || tot.Turns != want.Turns || tot.ToolCalls != want.ToolCalls || tot.InputTokens != want.InputTokens ||
		tot.OutputTokens != want.OutputTokens || tot.Cost < 0.11549 || tot.Cost > 0.11551 {
		t.Fatalf("totals %+v, want %+v", tot, want)
	}
	all, err := db.AllTotals(ctx)
	if err != nil || all[s.ID].Runs != 3 {
		t.Fatalf("all totals %+v %v", all, err)
	}
	if _, err := db.SessionTotals(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	runs, _ := db.ListRuns(ctx, s.ID)
	if runs[0].Mode != store.ModePlan || runs[1].Mode != store.ModeExecute || len(runs[0].Instructions) != 1 || runs[0].Instructions[0].Path != "/ws/AGENTS.md" {
		t.Fatalf("run modes and instructions: %+v", runs)
	}
	if _, err := db.StartRun(ctx, store.NewRun{SessionID: s.ID, Mode: "yolo"}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("bad mode: %v", err)
	}
	if m, _ := db.GetSessionMode(ctx, s.ID); m.Mode != store.ModeExecute || m.Approve != "" {
		t.Fatalf("default mode %+v", m)
	}
	if err := db.SetSessionMode(ctx, s.ID, store.SessionMode{Mode: store.ModePlan, Approve: "auto"}); err != nil {
		t.Fatal(err)
	}
	if m, _ := db.GetSessionMode(ctx, s.ID); m.Mode != store.ModePlan || m.Approve != "auto" {
		t.Fatalf("mode %+v", m)
	}
}
