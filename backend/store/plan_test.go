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

// Servers that number calls per response reuse ids: a later run's denied call and a later
// turn's failed call, both with the plan call's id, leave the plan pinned.
func TestLatestPlanCallIDsRepeatAcrossRuns(t *testing.T) {
	db, _ := openTemp(t)
	s := mustSession(t, db, "plan ids")
	ctx := context.Background()
	planArgs := `{"explanation":"tidy","plan":[{"step":"read","status":"completed"},{"step":"write","status":"in_progress"}]}`
	mustAppend(t, db, s.ID, "r1", user("make a plan"))
	mustAppend(t, db, s.ID, "r1", assistant("", call("0", "update_plan", planArgs)))
	mustAppend(t, db, s.ID, "r1", result("0", "update_plan", "plan updated"))
	mustAppend(t, db, s.ID, "r1", assistant("", call("0", "read_file", `{"path":"missing"}`)))
	mustAppend(t, db, s.ID, "r1", store.NewChunk{Kind: store.KindToolResult,
		Payload: store.ToolResultPayload{CallID: "0", Name: "read_file", Content: "no such file", IsError: true}})
	mustAppend(t, db, s.ID, "r1", assistant("planned"))
	mustAppend(t, db, s.ID, "r2", user("now write it"))
	mustAppend(t, db, s.ID, "r2", assistant("", call("0", "write_file", `{"path":"a","content":"b"}`)))
	mustAppend(t, db, s.ID, "r2", store.NewChunk{Kind: store.KindApproval,
		Payload: store.ApprovalPayload{CallID: "0", Tool: "write_file", Decision: store.DecisionDenied, By: "person", Reason: "not yet"}})
	mustAppend(t, db, s.ID, "r2", store.NewChunk{Kind: store.KindToolResult,
		Payload: store.ToolResultPayload{CallID: "0", Name: "write_file", Content: "denied: not yet", IsError: true}})
	rows, _ := db.Chunks(ctx, s.ID)
	p, err := store.LatestPlan(rows)
	if err != nil || p == nil {
		t.Fatalf("the plan vanished after calls reused its id: %+v %v", p, err)
	}
	if p.Seq != 2 || p.Explanation != "tidy" || len(p.Plan.Plan) != 2 || p.Plan.Plan[1].Status != store.StepInProgress {
		t.Fatalf("pinned plan: %+v", p)
	}
	// A denied update_plan sets no plan and keeps the one before.
	mustAppend(t, db, s.ID, "r3", user("change the plan"))
	mustAppend(t, db, s.ID, "r3", assistant("", call("0", "update_plan", `{"plan":[{"step":"other","status":"pending"}]}`)))
	mustAppend(t, db, s.ID, "r3", store.NewChunk{Kind: store.KindToolResult,
		Payload: store.ToolResultPayload{CallID: "0", Name: "update_plan", Content: "denied", IsError: true}})
	rows, _ = db.Chunks(ctx, s.ID)
	if p, _ := store.LatestPlan(rows); p == nil || p.Seq != 2 {
		t.Fatalf("a denied update_plan should keep the earlier plan: %+v", p)
	}
}
