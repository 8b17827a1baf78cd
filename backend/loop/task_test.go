package loop_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/task"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// taskHarness is the harness with the task tool on: its runner is replaced by one with
// Config.Children (the first one's cleanup still closes it).
func taskHarness(t *testing.T, cfg task.Config) *harness {
	t.Helper()
	h := newHarness(t)
	reg := toolsOf(t)
	h.runner = loop.New(loop.Config{Store: h.db, Approver: announcing{h.approver, h.pending}, Tools: reg, Workspaces: wsOf(),
		Model: h.model, Prices: core.PriceTable{"fake-model": {InputPerMTok: 1, OutputPerMTok: 2}}, Children: task.NewDriver(cfg, h.db)})
	t.Cleanup(h.runner.Close)
	h.rec = record(t, h.runner.Bus(), "")
	return h
}

func taskCall(id, description, prompt string) fakeai.Call {
	args, _ := json.Marshal(task.Args{Description: description, Prompt: prompt})
	return fakeai.Call{ID: id, Name: task.Tool, Arguments: string(args)}
}

// resultOf is the content of the tool_result row answering callID in rows.
func resultOf(t *testing.T, rows []store.Chunk, callID string) store.ToolResultPayload {
	t.Helper()
	for _, r := range rows {
		if r.Kind != store.KindToolResult {
			continue
		}
		var p store.ToolResultPayload
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if p.CallID == callID {
			return p
		}
	}
	t.Fatalf("no result for call %s", callID)
	return store.ToolResultPayload{}
}

// childOf is the child session the call started.
func childOf(t *testing.T, h *harness, parent, callID string) store.Session {
	t.Helper()
	s, err := h.db.ChildOf(context.Background(), parent, callID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A task call starts a child session in the same folder; the child's final answer is the
// parent's tool result, the child is listed like any session, linked to the call, and its
// events carry the call.
func TestTaskChildAnswerIsTheParentsToolResult(t *testing.T) {
	h := taskHarness(t, task.Config{})
	h.write("notes.txt", "the answer is 42\n")
	h.srv.EnqueueFor("[parent]", fakeai.ToolCalls(taskCall("t1", "read the notes", "[child] read notes.txt and report the answer")),
		fakeai.Text("The child says 42."))
	h.srv.EnqueueFor("[child]", fakeai.ToolCalls(fakeai.Call{ID: "r1", Name: "read_file", Arguments: `{"path":"notes.txt"}`}),
		fakeai.Text("The answer is 42."))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "[parent] ask a child", Mode: tools.ModeReadOnly})
	if res.Status != core.StopCompleted || res.Output != "The child says 42." {
		t.Fatalf("parent result %+v", res)
	}
	if got := resultOf(t, h.rows(sid), "t1"); got.Content != "The answer is 42." || got.IsError {
		t.Fatalf("the task call's result: %+v", got)
	}
	child := childOf(t, h, sid, "t1")
	if child.ParentID != sid || child.ParentCallID != "t1" || child.Workspace != h.ws || child.Title != "read the notes" || child.Model != "fake-model" {
		t.Fatalf("child session %+v", child)
	}
	list, _ := h.db.ListSessions(context.Background())
	if len(list) != 2 {
		t.Fatalf("sessions list should hold the parent and the child: %+v", list)
	}
	crows := h.rows(child.ID)
	if got := resultOf(t, crows, "r1"); !strings.Contains(got.Content, "the answer is 42") {
		t.Fatalf("the child's read_file result: %+v", got)
	}
	runs, _ := h.db.ListRuns(context.Background(), child.ID)
	if len(runs) != 1 || runs[0].Status != store.RunStatus(core.StopCompleted) {
		t.Fatalf("child runs %+v", runs)
	}
	fin := h.rec.waitFor(t, "child run_finished", func(e bus.Event) bool {
		return e.Type == core.EventRunFinished && e.SessionID == child.ID
	})
	if fin.ParentCallID != "t1" {
		t.Fatalf("the child's events should carry the call: %+v", fin)
	}
	line, _ := json.Marshal(fin)
	if !strings.Contains(string(line), `"parent_call_id":"t1","parent_session_id":"`+sid+`"`) || !strings.Contains(string(line), `"session_id":"`+child.ID+`"`) {
		t.Fatalf("the child's JSON event: %s", line)
	}
	h.checkPairing()
}

// The task call itself never asks (even in ask mode); the child's own call does, in the same
// approval path, and a denial reaches the child as its result while the parent goes on.
func TestTaskChildApprovalDeniedReachesTheChild(t *testing.T) {
	h := taskHarness(t, task.Config{})
	h.srv.EnqueueFor("[parent]", fakeai.ToolCalls(taskCall("t1", "make a file", "[child] write out.txt")),
		fakeai.Text("parent done"))
	h.srv.EnqueueFor("[child]", fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"out.txt","content":"x"}`}),
		fakeai.Text("I was not allowed to write."))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "[parent] delegate", Mode: tools.ModeAsk})
	p := <-h.pending
	if p.Call.ID != "w1" || p.SessionID == sid {
		t.Fatalf("the first call to ask should be the child's write, in the child session: %+v", p)
	}
	if err := h.approver.Decide(p.SessionID, "w1", tools.Decision{Approved: false, By: tools.ByPerson, Reason: "not now"}); err != nil {
		t.Fatal(err)
	}
	if res := h.wait(id); res.Status != core.StopCompleted {
		t.Fatalf("parent %+v", res)
	}
	child := childOf(t, h, sid, "t1")
	if got := resultOf(t, h.rows(child.ID), "w1"); !got.IsError || !strings.Contains(got.Content, "not now") {
		t.Fatalf("the child's denied call: %+v", got)
	}
	if got := resultOf(t, h.rows(sid), "t1"); got.Content != "I was not allowed to write." {
		t.Fatalf("the parent's task result: %+v", got)
	}
	select {
	case p := <-h.pending:
		t.Fatalf("nothing else should have asked: %+v", p)
	default:
	}
}

// A child that stops on its slice of the parent's budget comes back as its status and reason.
func TestTaskChildStoppedByItsBudgetSlice(t *testing.T) {
	h := taskHarness(t, task.Config{})
	h.srv.EnqueueFor("[parent]", fakeai.ToolCalls(taskCall("t1", "loop", "[child] keep listing")), fakeai.Text("ok"))
	h.srv.EnqueueFor("[child]",
		fakeai.ToolCalls(fakeai.Call{ID: "l1", Name: "list_dir", Arguments: `{}`}),
		fakeai.ToolCalls(fakeai.Call{ID: "l2", Name: "find_files", Arguments: `{"pattern":"*"}`}),
		fakeai.Text("never reached"))
	sid := h.session()
	// The parent may make 3 turns; its first is used when the task starts and one is kept for
	// it to read the answer, so the child's slice is 1 turn: it stops on max_turns after its
	// first (tool) turn, and the parent answers in its third.
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "[parent] go", Mode: tools.ModeAuto, Limits: core.Limits{MaxTurns: 3}})
	if res.Status != core.StopCompleted {
		t.Fatalf("parent %+v", res)
	}
	got := resultOf(t, h.rows(sid), "t1")
	child := childOf(t, h, sid, "t1")
	if !got.IsError || !strings.Contains(got.Content, "stopped: max_turns") || !strings.Contains(got.Content, child.ID) {
		t.Fatalf("the task result should say the child stopped on max_turns: %+v", got)
	}
	runs, _ := h.db.ListRuns(context.Background(), child.ID)
	lim, _ := core.ParseLimits(runs[0].Limits)
	if lim.MaxTurns != 1 || runs[0].Status != store.RunStatus(core.StopMaxTurns) {
		t.Fatalf("the child's run: limits %+v status %s", lim, runs[0].Status)
	}
}

// Task calls of one turn run in parallel, at most MaxParallel at once.
func TestTaskChildrenRunInParallelUpToTheLimit(t *testing.T) {
	h := taskHarness(t, task.Config{MaxParallel: 2})
	var calls []fakeai.Call
	for _, n := range []string{"1", "2", "3"} {
		calls = append(calls, taskCall("t"+n, "part "+n, "[child-"+n+"] work"))
		h.srv.EnqueueFor("[child-"+n+"]", fakeai.Text("done "+n).WithDelay(40*time.Millisecond))
	}
	h.srv.EnqueueFor("[parent]", fakeai.ToolCalls(calls...), fakeai.Text("all done"))
	sid := h.session()
	start := time.Now()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "[parent] split", Mode: tools.ModeAuto})
	if res.Status != core.StopCompleted {
		t.Fatalf("parent %+v", res)
	}
	for _, n := range []string{"1", "2", "3"} {
		if got := resultOf(t, h.rows(sid), "t"+n); got.Content != "done "+n {
			t.Fatalf("t%s: %+v", n, got)
		}
	}
	// At most two children were running at any moment: count overlaps from the events.
	running, most := 0, 0
	for _, e := range h.rec.all() {
		if e.ParentCallID == "" {
			continue
		}
		switch e.Type {
		case core.EventRunStarted:
			running++
			most = max(most, running)
		case core.EventRunFinished:
			running--
		}
	}
	if most != 2 {
		t.Fatalf("at most %d children ran at once, want 2 (MaxParallel)", most)
	}
	t.Logf("3 children, 2 at a time, in %v", time.Since(start))
}

// Stop on the parent stops its children: the child's run ends cancelled and is stored before
// the parent's call is answered.
func TestTaskStopOnTheParentStopsTheChild(t *testing.T) {
	h := taskHarness(t, task.Config{})
	h.srv.EnqueueFor("[parent]", fakeai.ToolCalls(taskCall("t1", "slow", "[child] wait forever")))
	h.srv.EnqueueFor("[child]", fakeai.Stall(0))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "[parent] go", Mode: tools.ModeAuto})
	h.rec.waitFor(t, "child run_started", func(e bus.Event) bool { return e.Type == core.EventRunStarted && e.ParentCallID == "t1" })
	waitFor(t, func() bool { return len(h.srv.Requests()) >= 2 }) // the child's model call is under way
	h.runner.Cancel(sid)
	if res := h.wait(id); res.Status != core.StopCancelled {
		t.Fatalf("parent %+v", res)
	}
	child := childOf(t, h, sid, "t1")
	runs, _ := h.db.ListRuns(context.Background(), child.ID)
	if len(runs) != 1 || runs[0].Status != store.RunStatus(core.StopCancelled) {
		t.Fatalf("the child's run after Stop on the parent: %+v", runs)
	}
	if _, going := h.runner.Running(child.ID); going {
		t.Fatal("the child is still running")
	}
	if u := unanswered(t, h.rows(sid)); len(u) != 0 {
		t.Fatalf("unanswered parent calls: %v", u)
	}
}

// A child never gets the task tool (without an agent that allows it), and bad arguments come
// back to the model as an error without starting anything.
func TestTaskDepthAndBadArguments(t *testing.T) {
	h := taskHarness(t, task.Config{})
	h.srv.EnqueueFor("[parent]", fakeai.ToolCalls(
		fakeai.Call{ID: "bad", Name: task.Tool, Arguments: `{"description":"x"}`},
		taskCall("t1", "nest", "[child] try to nest")), fakeai.Text("ok"))
	h.srv.EnqueueFor("[child]", fakeai.Text("leaf"))
	sid := h.session()
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "[parent] go", Mode: tools.ModeAuto}); res.Status != core.StopCompleted {
		t.Fatalf("parent %+v", res)
	}
	if got := resultOf(t, h.rows(sid), "bad"); !got.IsError || !strings.Contains(got.Content, "prompt") {
		t.Fatalf("bad arguments: %+v", got)
	}
	offered := func(body []byte) bool { return strings.Contains(string(body), `"name":"task"`) }
	var parentSaw, childSaw bool
	for _, r := range h.srv.Requests() {
		if strings.Contains(string(r.Body), "[child] try to nest") && !strings.Contains(string(r.Body), "[parent]") {
			childSaw = childSaw || offered(r.Body)
		} else {
			parentSaw = parentSaw || offered(r.Body)
		}
	}
	if !parentSaw || childSaw {
		t.Fatalf("task tool offered: parent %v (want true), child %v (want false)", parentSaw, childSaw)
	}
	kids, _ := h.db.Children(context.Background(), sid)
	if len(kids) != 1 {
		t.Fatalf("children %+v", kids)
	}
}

// A child's spend counts in the parent's meters and against its token budget: the parent
// that delegated past its budget stops as token_budget instead of going on.
func TestTaskChildSpendAddsUpInTheParent(t *testing.T) {
	h := taskHarness(t, task.Config{})
	h.srv.EnqueueFor("[parent]", fakeai.ToolCalls(taskCall("t1", "spend", "[child] spend")).WithUsage(100, 10, 0),
		fakeai.Text("never asked"))
	h.srv.EnqueueFor("[child]", fakeai.Text("spent").WithUsage(700, 100, 0))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "[parent] go", Mode: tools.ModeAuto, Limits: core.Limits{MaxTokens: 800}})
	if res.Status != core.StopTokenBudget {
		t.Fatalf("the parent should stop on its token budget once the child's 800 tokens add up: %+v", res)
	}
	finished(h, sid)
	var last core.BudgetPayload
	for _, e := range h.rec.all() {
		if b, ok := e.Payload.(core.BudgetPayload); ok && e.SessionID == sid {
			last = b
		}
	}
	if last.Tokens != 910 {
		t.Fatalf("the parent's meter: %d tokens, want 110 + 800 from the child", last.Tokens)
	}
	tot, kids, err := h.db.FamilyTotals(context.Background(), sid)
	if err != nil || tot.InputTokens != 800 || tot.OutputTokens != 110 || len(kids) != 1 || kids[0].InputTokens != 700 {
		t.Fatalf("family totals %+v %+v %v", tot, kids, err)
	}
	if len(h.srv.Requests()) != 2 {
		t.Fatalf("the parent made another model call past its budget: %d requests", len(h.srv.Requests()))
	}
}
