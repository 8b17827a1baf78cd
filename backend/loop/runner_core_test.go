package loop_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// A call of a tool the run does not offer, in ask mode: nobody is asked (the core approves it
// as runner:unknown_tool), the tool runner answers unknown_tool, the model reads that, and
// the offered read-only call beside it is asked about as usual.
func TestUnknownToolIsAnsweredWithoutAskingAnyone(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "alpha\n")
	h.srv.Enqueue(fakeai.ToolCalls(
		fakeai.Call{ID: "c_rm", Name: "rm_rf", Arguments: `{"path":"."}`},
		fakeai.Call{ID: "c_read", Name: "read_file", Arguments: `{"path":"a.txt"}`},
	), fakeai.Text("There is no rm_rf."))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "clean", Mode: tools.ModeAsk})
	select {
	case p := <-h.pending:
		if p.Call.Name != "read_file" {
			t.Fatalf("asked about %s", p.Call.Name)
		}
		if err := h.approver.Decide(sid, p.Call.ID, tools.Decision{Approved: true}); err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("never asked about read_file")
	}
	if res := h.wait(id); res.Status != core.StopCompleted {
		t.Fatalf("%+v", res)
	}
	by, results := map[string]string{}, map[string]store.ToolResultPayload{}
	for _, c := range h.rows(sid) {
		switch c.Kind {
		case store.KindApproval:
			var p store.ApprovalPayload
			_ = json.Unmarshal(c.Payload, &p)
			by[p.CallID] = p.By
		case store.KindToolResult:
			var p store.ToolResultPayload
			_ = json.Unmarshal(c.Payload, &p)
			results[p.CallID] = p
		}
	}
	if by["c_rm"] != "runner:unknown_tool" || by["c_read"] != tools.ByPerson {
		t.Fatalf("decided by %v", by)
	}
	if r := results["c_rm"]; !r.IsError || !strings.Contains(r.Content, "unknown_tool") {
		t.Fatalf("unknown call's result %+v", r)
	}
	if r := results["c_read"]; r.IsError || !strings.Contains(r.Content, "alpha") {
		t.Fatalf("read's result %+v", r)
	}
	last := h.requests()[1]
	if tool := last[len(last)-2]; tool.ToolCallID != "c_rm" || !strings.Contains(tool.Content, "unknown_tool") {
		t.Fatalf("the model did not read the unknown_tool answer: %+v", last)
	}
}
