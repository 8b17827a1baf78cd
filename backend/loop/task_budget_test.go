package loop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/task"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// lastBudget is the last budget event of session sid.
func lastBudget(h *harness, sid string) core.BudgetPayload {
	finished(h, sid)
	var last core.BudgetPayload
	for _, e := range h.rec.all() {
		if b, ok := e.Payload.(core.BudgetPayload); ok && e.SessionID == sid {
			last = b
		}
	}
	return last
}

// finished waits until the recorder holds the session's run_finished: the bus delivers
// asynchronously, and the events of a run's last batch are published just before it.
func finished(h *harness, sid string) {
	h.t.Helper()
	h.rec.waitFor(h.t, "run_finished of "+sid, func(e bus.Event) bool {
		return e.Type == core.EventRunFinished && e.SessionID == sid
	})
}

// A child's turns count against the parent's max_turns: two children of one turn use one
// turn each, so a parent allowed 3 turns has used them all after its first and stops there,
// without another model call; its meter, and the family totals, say 3.
func TestTaskChildTurnsCountAgainstTheParentsMaxTurns(t *testing.T) {
	h := taskHarness(t, task.Config{})
	h.srv.EnqueueFor("[parent]", fakeai.ToolCalls(taskCall("t1", "one", "[child1] answer"), taskCall("t2", "two", "[child2] answer")),
		fakeai.Text("never asked"))
	h.srv.EnqueueFor("[child1]", fakeai.Text("one done"))
	h.srv.EnqueueFor("[child2]", fakeai.Text("two done"))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "[parent] go", Mode: tools.ModeAuto, Limits: core.Limits{MaxTurns: 3}})
	if res.Status != core.StopMaxTurns {
		t.Fatalf("the parent should stop on max_turns once its children's turns add up to 3: %+v", res)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Fatalf("%d model calls, want 3 (the parent's first and one per child): the children used the parent's other turns", n)
	}
	if b := lastBudget(h, sid); b.Turns != 3 || b.MaxTurns != 3 || b.ToolCalls != 2 {
		t.Fatalf("the parent's meters: turns %d/%d, tool calls %d; want 3/3 and 2", b.Turns, b.MaxTurns, b.ToolCalls)
	}
	tot, kids, err := h.db.FamilyTotals(context.Background(), sid)
	if err != nil || tot.Turns != 3 || len(kids) != 2 || kids[0].Turns != 1 || kids[1].Turns != 1 {
		t.Fatalf("family totals %+v children %+v %v", tot, kids, err)
	}
}

// A child's tool calls count against the parent's max_tool_calls: the child uses the two
// calls its slice allows, so the parent's next call is refused and the run stops there.
func TestTaskChildToolCallsCountAgainstTheParentsLimit(t *testing.T) {
	h := taskHarness(t, task.Config{})
	h.srv.EnqueueFor("[parent]", fakeai.ToolCalls(taskCall("t1", "look", "[child] look around")),
		fakeai.ToolCalls(fakeai.Call{ID: "p2", Name: "list_dir", Arguments: `{}`}), fakeai.Text("never asked"))
	h.srv.EnqueueFor("[child]",
		fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "list_dir", Arguments: `{}`}),
		fakeai.ToolCalls(fakeai.Call{ID: "c2", Name: "find_files", Arguments: `{"pattern":"*"}`}),
		fakeai.Text("looked"))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "[parent] go", Mode: tools.ModeAuto, Limits: core.Limits{MaxToolCalls: 3}})
	if res.Status != core.StopMaxToolCalls {
		t.Fatalf("the parent should stop on max_tool_calls (1 own + 2 of its child): %+v", res)
	}
	got := resultOf(t, h.rows(sid), "p2")
	if !got.IsError || !strings.Contains(got.Content, "limit of 3 tool calls") {
		t.Fatalf("the parent's call past the limit should not run: %+v", got)
	}
	if b := lastBudget(h, sid); b.ToolCalls != 4 || b.MaxToolCalls != 3 {
		t.Fatalf("the parent's meter: %d/%d tool calls, want 4/3 (the refused one counted)", b.ToolCalls, b.MaxToolCalls)
	}
	tot, kids, err := h.db.FamilyTotals(context.Background(), sid)
	if err != nil || tot.ToolCalls != 4 || len(kids) != 1 || kids[0].ToolCalls != 2 {
		t.Fatalf("family totals %+v children %+v %v", tot, kids, err)
	}
}
