package store_test

import (
	"context"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// The pinned plan is the latest update_plan call that succeeded or the person's latest edit.
func TestLatestPlan(t *testing.T) {
	db, _ := openTemp(t)
	s := mustSession(t, db, "plan")
	ctx := context.Background()
	if p, err := store.LatestPlan(nil); p != nil || err != nil {
		t.Fatalf("no rows: %+v %v", p, err)
	}
	mustAppend(t, db, s.ID, "", user("go"),
		assistant("", call("a", "update_plan", `{"plan":[{"step":"one","status":"in_progress"}]}`)), result("a", "update_plan", "ok"),
		assistant("", call("b", "update_plan", `{"plan":[{"step":"bad","status":"nope"}]}`)),
		store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: "b", Name: "update_plan", Content: "invalid", IsError: true}})
	rows, _ := db.Chunks(ctx, s.ID)
	p, err := store.LatestPlan(rows)
	if err != nil || p == nil || p.By != "model" || p.Plan.Plan[0].Step != "one" || p.Seq != 2 {
		t.Fatalf("the failed update should not count: %+v %v", p, err)
	}
	note, err := store.PlanEditNote(store.Plan{Explanation: "mine", Plan: []store.PlanStep{{Step: "two", Status: "pending"}}})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, db, s.ID, "", note)
	rows, _ = db.Chunks(ctx, s.ID)
	if p, _ := store.LatestPlan(rows); p == nil || p.By != "person" || p.Explanation != "mine" || p.Plan.Plan[0].Step != "two" {
		t.Fatalf("the person's edit: %+v", p)
	}
	if _, err := store.PlanEditNote(store.Plan{Plan: []store.PlanStep{{Step: " ", Status: "pending"}}}); err == nil {
		t.Fatal("an empty step should be refused")
	}
}
