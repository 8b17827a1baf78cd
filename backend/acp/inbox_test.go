package acp_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// With a window open on its database, `loopdesk acp` registers with it under the editor's
// name: a call the editor never answers shows in the window's inbox, is answered there as
// person:inbox (the editor's request is withdrawn), runs, and the prompt ends.
func TestInboxAnswersAnEditorsCall(t *testing.T) {
	e := newEnv(t)
	hub, db := acpWindow(t, e)
	ctx := context.Background()

	e.srv.Enqueue(fakeai.ToolCalls(write("x.txt", "from the inbox")), fakeai.Text("done"))
	p := e.start(plan{Answers: []string{"never"}, Steps: []step{
		{"op": "initialize", "clientInfo": map[string]any{"name": "zed", "version": "1"}}, {"op": "new", "cwd": e.ws},
		{"op": "prompt", "text": "write x", "async": true}, {"op": "waitPermission"}, {"op": "settle"},
	}}, "--approve", "ask")
	a := waitInbox(t, hub, "x.txt")
	if a.Origin.Kind != inbox.OriginACP || a.Origin.Client != "zed" || a.Origin.PID != p.agent.Process.Pid || a.Tool != "write_file" {
		t.Fatalf("the editor's call in the inbox: %+v", a)
	}
	if err := hub.Answer(ctx, inbox.Answer{SessionID: a.SessionID, CallID: a.CallID, Approve: true}); err != nil {
		t.Fatal(err)
	}
	evs := p.finish()
	if !promptEnded(evs) {
		t.Fatalf("the prompt did not end after the inbox answered:\n%s", dump(evs))
	}
	// The ended run says where it came from: the editor, by name, and the agent's pid.
	// (Its row is written before the prompt's answer.)
	if v, err := hub.View(ctx); err != nil || len(v.Ended) != 1 ||
		v.Ended[0].Origin != (inbox.Process{Kind: inbox.OriginACP, PID: p.agent.Process.Pid, Client: "zed"}) {
		t.Fatalf("the ended run's origin: %+v %v", v.Ended, err)
	}
	if b, err := os.ReadFile(e.ws + "/x.txt"); err != nil || string(b) != "from the inbox" {
		t.Fatalf("the call did not run: %q %v", b, err)
	}
	rows, _ := db.Chunks(ctx, a.SessionID)
	var by []string
	for _, r := range rows {
		if r.Kind == store.KindApproval {
			var ap store.ApprovalPayload
			_ = json.Unmarshal(r.Payload, &ap)
			by = append(by, ap.By)
		}
	}
	if len(by) != 1 || by[0] != inbox.ByInbox {
		t.Fatalf("approval rows by %v, want one by person:inbox", by)
	}
}

// acpWindow is a window's inbox on e's database, in this process, and that database.
func acpWindow(t *testing.T, e *env) (*inbox.Hub, *store.DB) {
	t.Helper()
	dir, err := os.MkdirTemp("", "ld") // short: a socket's path has at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("XDG_RUNTIME_DIR", dir)
	ctx, cancel := context.WithCancel(context.Background())
	db := e.openDB()
	hub := inbox.NewHub(&inbox.Local{DB: db, Approver: tools.NewApprover(stack.Rules{DB: db})})
	ln, err := inbox.Listen(inbox.SocketPath(e.db))
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() { hub.Serve(ctx, ln); close(served) }()
	t.Cleanup(func() { cancel(); <-served; hub.Close() })
	return hub, db
}

// waitInbox waits until the window's inbox lists one call, whose arguments mention what.
func waitInbox(t *testing.T, hub *inbox.Hub, what string) inbox.Approval {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if as := hub.Approvals(context.Background()); len(as) == 1 && strings.Contains(string(as[0].Arguments), what) {
			return as[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the editor's call (%s) never reached the window's inbox alone: %+v", what, hub.Approvals(context.Background()))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A session the editor gives MCP servers of its own runs on a stack of its own; its calls,
// and its child sessions', are in the window's inbox all the same, with their run. A child's
// call answered in the inbox withdraws the editor's request for it while the run goes on.
func TestInboxAnswersCallsOfASessionWithItsOwnServersAndOfItsChild(t *testing.T) {
	e := newEnv(t)
	hub, _ := acpWindow(t, e)
	ctx := context.Background()
	e.srv.EnqueueFor("[parent]", fakeai.ToolCalls(fakeai.Call{ID: "t1", Name: "task",
		Arguments: `{"description":"write it","prompt":"[child] write c"}`}),
		fakeai.ToolCalls(write("p.txt", "the parent's")), fakeai.Text("both written"))
	c := write("c.txt", "the child's")
	e.srv.EnqueueFor("[child]", fakeai.ToolCalls(c), fakeai.Text("written"))
	self, _ := os.Executable()
	p := e.start(plan{Answers: []string{"never", "never"}, Steps: []step{
		{"op": "initialize", "clientInfo": map[string]any{"name": "zed", "version": "1"}},
		{"op": "new", "cwd": e.ws, "mcpServers": []any{map[string]any{"name": "editor", "command": self, "args": []string{},
			"env": []any{map[string]string{"name": "LOOPDESK_ACP_MCP_SERVER", "value": "1"}}}}},
		{"op": "prompt", "text": "[parent] write both", "async": true}, {"op": "settle"},
	}}, "--approve", "ask")

	child := waitInbox(t, hub, "c.txt")
	if child.ParentSessionID == nil || child.RunID == "" || child.Origin.Kind != inbox.OriginACP || child.Origin.Client != "zed" {
		t.Fatalf("the child's call in the inbox: %+v", child)
	}
	p.waitFor("the editor asked about the child's call", func(ev event) bool { return ev.Ev == "permission" })
	if err := hub.Answer(ctx, inbox.Answer{SessionID: child.SessionID, CallID: child.CallID, Approve: true}); err != nil {
		t.Fatal(err)
	}
	parent := waitInbox(t, hub, "p.txt")
	if parent.ParentSessionID != nil || parent.RunID == "" {
		t.Fatalf("the parent's call in the inbox: %+v", parent)
	}
	// The run still goes (its next call waits): the child's request was withdrawn because the
	// inbox answered it, not because the run ended.
	p.waitFor("the child's request withdrawn", func(ev event) bool {
		return ev.Ev == "withdrawn" && ev.ToolCall.ToolCallID == child.SessionID+"/"+child.CallID
	})
	if err := hub.Answer(ctx, inbox.Answer{SessionID: parent.SessionID, CallID: parent.CallID, Approve: true}); err != nil {
		t.Fatal(err)
	}
	evs := p.finish()
	if !promptEnded(evs) {
		t.Fatalf("the prompt did not end after the inbox answered:\n%s", dump(evs))
	}
	for _, f := range []string{"c.txt", "p.txt"} {
		if _, err := os.Stat(e.ws + "/" + f); err != nil {
			t.Errorf("%s was not written: %v", f, err)
		}
	}
}

// promptEnded reports whether an async prompt ended its turn.
func promptEnded(evs []event) bool {
	for _, ev := range evs {
		if ev.Ev == "result" && ev.Op == "prompt" && stopReasonOf(ev) == "end_turn" {
			return true
		}
	}
	return false
}

func stopReasonOf(ev event) string {
	var r struct {
		StopReason string `json:"stopReason"`
	}
	_ = json.Unmarshal(ev.Result, &r)
	return r.StopReason
}
