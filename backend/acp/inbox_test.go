package acp_test

import (
	"context"
	"encoding/json"
	"os"
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
	dir, err := os.MkdirTemp("", "ld") // short: a socket's path has at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
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
	defer func() { cancel(); <-served; hub.Close() }()

	e.srv.Enqueue(fakeai.ToolCalls(write("x.txt", "from the inbox")), fakeai.Text("done"))
	p := e.start(plan{Answers: []string{"never"}, Steps: []step{
		{"op": "initialize", "clientInfo": map[string]any{"name": "zed", "version": "1"}}, {"op": "new", "cwd": e.ws},
		{"op": "prompt", "text": "write x", "async": true}, {"op": "waitPermission"}, {"op": "settle"},
	}}, "--approve", "ask")
	var a inbox.Approval
	deadline := time.Now().Add(60 * time.Second)
	for {
		if as := hub.Approvals(ctx); len(as) == 1 {
			a = as[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the editor's call never reached the window's inbox")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if a.Origin.Kind != inbox.OriginACP || a.Origin.Client != "zed" || a.Origin.PID != p.agent.Process.Pid || a.Tool != "write_file" {
		t.Fatalf("the editor's call in the inbox: %+v", a)
	}
	if err := hub.Answer(ctx, inbox.Answer{SessionID: a.SessionID, CallID: a.CallID, Approve: true}); err != nil {
		t.Fatal(err)
	}
	evs := p.finish()
	var ended bool
	for _, ev := range evs {
		if ev.Ev == "result" && ev.Op == "prompt" && stopReasonOf(ev) == "end_turn" {
			ended = true
		}
	}
	if !ended {
		t.Fatalf("the prompt did not end after the inbox answered:\n%s", dump(evs))
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

func stopReasonOf(ev event) string {
	var r struct {
		StopReason string `json:"stopReason"`
	}
	_ = json.Unmarshal(ev.Result, &r)
	return r.StopReason
}
