package desktop_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/store"
)

// inboxed is the first inbox:changed event after from whose approvals satisfy ok.
func inboxed(t *testing.T, app *testApp, what string, ok func(as []any) bool) map[string]any {
	t.Helper()
	return app.rec.waitFor(t, what, func(ev map[string]any) bool {
		as, _ := ev["approvals"].([]any)
		return ev["_event"] == desktop.EventInboxChanged && ok(as)
	})
}

// TestInboxBindingsFollowAWaitingCall: a call that starts waiting in a session is on the page
// at once (inbox:changed carries the whole inbox), is answered from the inbox as person:inbox
// (the tool runs), leaves the inbox, and its run ends up in the ended list until dismissed.
func TestInboxBindingsFollowAWaitingCall(t *testing.T) {
	dir, err := os.MkdirTemp("", "ld") // a short socket path
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("XDG_RUNTIME_DIR", dir)
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	ws := t.TempDir()
	s, err := app.NewSession(ws)
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"a.txt","content":"hi\n"}`}),
		fakeai.Text("done"))
	shown := make(chan time.Time, 1)
	app.rec.onEmit = func(ev map[string]any) {
		if as, _ := ev["approvals"].([]any); ev["_event"] == desktop.EventInboxChanged && len(as) == 1 {
			select {
			case shown <- time.Now():
			default:
			}
		}
	}
	asked := time.Now()
	runID, err := app.SendMessage(s.ID, "go")
	if err != nil {
		t.Fatal(err)
	}
	ev := inboxed(t, app, "the call in the inbox", func(as []any) bool { return len(as) == 1 })
	if d := time.Since(asked); d > 5*time.Second {
		t.Errorf("inbox:changed came %v after the message", d)
	}
	a := ev["approvals"].([]any)[0].(map[string]any)
	// From the call starting to wait to the page's event (the issue asks for 100 ms on screen;
	// the bound here is loose for a loaded machine running -race).
	requested, err := time.Parse(time.RFC3339Nano, a["requested_at"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if d := (<-shown).Sub(requested); d > time.Second {
		t.Errorf("inbox:changed came %v after the call started waiting", d)
	} else {
		t.Logf("inbox:changed came %v after the call started waiting", d)
	}
	if a["call_id"] != "w1" || a["session_id"] != s.ID || a["run_id"] != runID || a["origin"].(map[string]any)["kind"] != "window" ||
		a["diff"] == "" || a["parent_session_id"] != nil {
		t.Fatalf("approval on the page: %v", a)
	}
	// The socket is up: the command line sees the same call.
	if v, err := inbox.List(context.Background(), app.dbPath); err != nil || len(v.Approvals) != 1 {
		t.Fatalf("through the socket: %+v, %v", v, err)
	}
	if err := app.InboxAnswer(inbox.Answer{SessionID: s.ID, CallID: "w1", Approve: true}); err != nil {
		t.Fatal(err)
	}
	if err := app.InboxAnswer(inbox.Answer{SessionID: s.ID, CallID: "w1", Approve: true}); desktop.Classify(err).Code != desktop.CodeNotPending {
		t.Fatalf("a second answer: %v", err)
	}
	app.rec.waitFor(t, "approval_decided by person:inbox", func(ev map[string]any) bool {
		return ev["type"] == "approval_decided" && ev["call_id"] == "w1" && ev["by"] == inbox.ByInbox
	})
	app.rec.waitFor(t, "the run in the ended list", func(ev map[string]any) bool {
		ended, _ := ev["ended"].([]any)
		return ev["_event"] == desktop.EventInboxChanged && len(ended) == 1 && ended[0].(map[string]any)["run_id"] == runID
	})
	if b, err := os.ReadFile(ws + "/a.txt"); err != nil || string(b) != "hi\n" {
		t.Fatalf("the approved call did not run: %q %v", b, err)
	}
	if v, err := app.Inbox(); err != nil || len(v.Ended) != 1 || v.Ended[0].Origin.Kind != inbox.OriginWindow || v.Ended[0].Origin.PID != os.Getpid() {
		t.Fatalf("the ended run does not say it came from the window: %+v %v", v.Ended, err)
	}
	if err := app.InboxDismiss(runID); err != nil {
		t.Fatal(err)
	}
	v, err := app.Inbox()
	if err != nil || len(v.Approvals) != 0 || len(v.Ended) != 0 {
		t.Fatalf("after dismissing: %+v, %v", v, err)
	}
	if _, err := app.InboxAlwaysPreview(s.ID, "w1", "galaxy"); desktop.Classify(err).Code != desktop.CodeInvalid {
		t.Errorf("an unknown scope: %v", err)
	}
	if err := app.InboxDismiss("nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("dismissing an unknown run: %v", err)
	}
}
