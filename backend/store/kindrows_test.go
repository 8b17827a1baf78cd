package store_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// SessionPlan pins the same plan as LatestPlan over every row, after each row of a session
// where an update fails, calls reuse the plan call's id, the person edits the plan and a
// later update succeeds; and it reads no tool output but those of a plan call's turn.
func TestSessionPlanIsLatestPlanOfEveryRow(t *testing.T) {
	db, _ := openTemp(t)
	s := mustSession(t, db, "plan rows")
	ctx := context.Background()
	edit, err := store.PlanEditNote(store.Plan{Explanation: "mine", Plan: []store.PlanStep{{Step: "two", Status: "pending"}}})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("a long output line\n", 10_000)
	steps := [][]store.NewChunk{
		{user("go"), assistant("", call("0", "read_file", `{"path":"a"}`)), result("0", "read_file", big)},
		{assistant("", call("0", "update_plan", `{"plan":[{"step":"one","status":"in_progress"}]}`)), result("0", "update_plan", "ok")},
		{assistant("", call("0", "update_plan", `{"plan":[{"step":"bad","status":"nope"}]}`)),
			store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: "0", Name: "update_plan", Content: "invalid", IsError: true}}},
		{assistant("", call("0", "read_file", `{"path":"b"}`)),
			store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: "0", Name: "read_file", Content: "no such file", IsError: true}}},
		{edit},
		{assistant("", call("1", "read_file", `{"path":"c"}`), call("2", "update_plan", `{"plan":[{"step":"three","status":"completed"}]}`)),
			result("1", "read_file", big), result("2", "update_plan", "ok"), assistant("done")},
	}
	for i, rows := range steps {
		mustAppend(t, db, s.ID, "", rows...)
		all, _ := db.Chunks(ctx, s.ID)
		want, err := store.LatestPlan(all)
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.SessionPlan(ctx, s.ID)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("after step %d: SessionPlan %+v, %v; LatestPlan %+v", i, got, err, want)
		}
	}
	before := db.RowsRead()
	if p, _ := db.SessionPlan(ctx, s.ID); p == nil || p.Plan.Plan[0].Step != "three" {
		t.Fatalf("plan %+v, want the last update's", p)
	}
	// The candidates (the note and the three assistant rows naming update_plan) and the last
	// one's two results: not the first step's output.
	if n := db.RowsRead() - before; n != 6 {
		t.Errorf("SessionPlan read %d rows, want 6", n)
	}
	if _, err := db.SessionPlan(ctx, "nope"); err == nil {
		t.Error("no error for a session that does not exist")
	}
}

// ChunksOfKindAfter returns the rows of one kind naming a text after a seq, and reads no other row.
func TestChunksOfKindAfterReadsThatKindOnly(t *testing.T) {
	db, _ := openTemp(t)
	s := mustSession(t, db, "kinds")
	ctx := context.Background()
	for i := range 5 {
		id := string(rune('a' + i))
		mustAppend(t, db, s.ID, "", user("go"), assistant("", call(id, "read_file", `{"path":"x"}`)), result(id, "read_file", "out"))
	}
	before := db.RowsRead()
	mustAppend(t, db, s.ID, "", user("go"), assistant("", call("f", "list_dir", `{"path":"x"}`)), result("f", "list_dir", "out"))
	rows, err := db.ChunksOfKindAfter(ctx, s.ID, store.KindAssistant, 5, `"read_file"`)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for _, r := range rows {
		if r.Kind != store.KindAssistant {
			t.Errorf("row %d is a %s", r.Seq, r.Kind)
		}
		seqs = append(seqs, r.Seq)
	}
	if !reflect.DeepEqual(seqs, []int64{8, 11, 14}) || db.RowsRead()-before != 3 {
		t.Errorf("seqs %v, %d rows read; want [8 11 14], 3", seqs, db.RowsRead()-before)
	}
	if _, err := db.ChunksOfKindAfter(ctx, "nope", store.KindAssistant, 0, ""); err == nil {
		t.Error("no error for a session that does not exist")
	}
}

// ReportChunks carries every row's seq, kind and time, the calls and approvals whole, and of a
// tool output only whether it ran sandboxed.
func TestReportChunksLeaveTheOutputsOut(t *testing.T) {
	db, _ := openTemp(t)
	s := mustSession(t, db, "report rows")
	ctx := context.Background()
	big := strings.Repeat("output\n", 100_000)
	mustAppend(t, db, s.ID, "", user("go"), assistant("", call("a", "run_shell_command", `{"command":"ls"}`), call("b", "read_file", `{"path":"x"}`)),
		store.NewChunk{Kind: store.KindApproval, Payload: store.ApprovalPayload{CallID: "a", Tool: "run_shell_command", Decision: store.DecisionApproved, By: "person"}},
		store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: "a", Name: "run_shell_command", Content: big, Sandboxed: true}},
		result("b", "read_file", big))
	all, _ := db.Chunks(ctx, s.ID)
	rows, err := db.ReportChunks(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The call's row (before the approval, and the row just before it), the approval, the
	// sandboxed result; not the person's message nor the other output.
	want := map[int64]string{2: string(all[1].Payload), 3: string(all[2].Payload), 4: `{"sandboxed":true}`}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		w := all[r.Seq-1]
		if r.Kind != w.Kind || !r.CreatedAt.Equal(w.CreatedAt) || string(r.Payload) != want[r.Seq] {
			t.Errorf("row %d: %s %s %.60s, want %s %.60s", r.Seq, r.Kind, r.CreatedAt, r.Payload, w.Kind, want[r.Seq])
		}
	}
}
