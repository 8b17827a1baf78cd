package acp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A run started from the editor has the task tool. Its child's calls that need the person are
// asked in the editor, labelled with the child, as calls of the prompted session; the
// editor's answers (allow, then reject: the child gets the denial) are recorded in the
// child's session; the child's progress shows on the task call until its answer is the
// call's result.
func TestChildSessionAskedInTheEditor(t *testing.T) {
	e := newEnv(t)
	e.srv.EnqueueFor("[parent]", fakeai.ToolCalls(fakeai.Call{ID: "t1", Name: "task",
		Arguments: `{"description":"build it","prompt":"[child] run make"}`}), fakeai.Text("The child built it."))
	mk := shell("make")
	mk.ID = "c1"
	inst := shell("make install")
	inst.ID = "c2"
	e.srv.EnqueueFor("[child]", fakeai.ToolCalls(mk), fakeai.ToolCalls(inst), fakeai.Text("built"))
	p := e.start(plan{Answers: []string{"allow_once", "reject_once"}, Steps: []step{
		{"op": "initialize"}, {"op": "new", "cwd": e.ws}, {"op": "prompt", "text": "[parent] build"},
	}}, "--approve", "ask")
	evs := p.finish()
	if strings.Contains(p.stderr.String(), "DATA RACE") { // built with -race (race_test.go)
		t.Fatalf("a data race in the agent:\n%s", p.stderr.String())
	}
	if got := stopReason(t, results(evs)[2]); got != "end_turn" {
		t.Fatalf("stop reason %q\n%s", got, dump(evs))
	}
	var asked []event
	for _, ev := range evs {
		if ev.Ev == "permission" {
			asked = append(asked, ev)
		}
	}
	if len(asked) != 2 {
		t.Fatalf("%d permission requests, want the child's two\n%s", len(asked), dump(evs))
	}
	tc := asked[0].ToolCall
	child, callID, _ := strings.Cut(tc.ToolCallID, "/")
	if callID != "c1" || !strings.HasPrefix(tc.Title, `child "build it": Run `+"`make`") || len(asked[0].Options) != 2 {
		t.Fatalf("the child's permission request: %+v options %+v", tc, asked[0].Options)
	}
	var progress, announced, result, rejected bool
	for _, u := range updatesOf(evs, 2) {
		switch {
		case u.SessionUpdate == "tool_call_update" && u.ToolCallID == child+"/c2" && u.Status != "":
			rejected = u.Status == "failed" && strings.Contains(string(u.Content), "rejected in the editor")
		case u.SessionUpdate == "tool_call" && u.ToolCallID == tc.ToolCallID:
			announced = strings.HasPrefix(u.Title, `child "build it"`)
		case u.SessionUpdate == "tool_call_update" && u.ToolCallID == "t1" && strings.Contains(string(u.Content), "Child session "+child) &&
			strings.Contains(string(u.Content), "waiting for your approval of run_shell_command"):
			progress = true
		case u.SessionUpdate == "tool_call_update" && u.ToolCallID == "t1" && u.Status == "completed":
			result = strings.Contains(string(u.Content), "built") && !strings.Contains(string(u.Content), "Child session")
		}
	}
	if !announced || !progress || !result || !rejected {
		t.Fatalf("announced %v, progress on the task call %v, its result %v, the rejected call failed %v\n%s",
			announced, progress, result, rejected, dump(evs))
	}
	db := e.openDB()
	s, err := db.GetSession(context.Background(), child)
	if err != nil || s.ParentCallID != "t1" {
		t.Fatalf("the child session %+v %v", s, err)
	}
	rows, _ := db.Chunks(context.Background(), child)
	var by []string
	for _, r := range rows {
		if r.Kind == store.KindApproval {
			var a store.ApprovalPayload
			_ = json.Unmarshal(r.Payload, &a)
			by = append(by, string(a.Decision)+" "+a.By)
		}
	}
	if strings.Join(by, ", ") != "approved person:acp, denied person:acp" {
		t.Fatalf("the child's approvals %q", by)
	}
}
