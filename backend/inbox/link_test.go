package inbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// A process linked before any window exists registers with the window that opens later
// (its waiting call shows there), leaves it when it goes, and registers again with the one
// that replaces it.
func TestLinkRegistersWithEveryWindowThatOpensLater(t *testing.T) {
	e := newEnv(t)
	dir, err := os.MkdirTemp("", "ld") // short: a socket's path has at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("XDG_RUNTIME_DIR", dir+"/not-yet") // not even the folder exists yet

	other := tools.NewApprover(stack.Rules{DB: e.db})
	link := inbox.Keep(e.ctx, e.path, &inbox.Local{DB: e.db, Approver: other}, inbox.Process{Kind: inbox.OriginRun})
	defer link.Close()
	s := e.session("Late", e.ws, nil)
	go func() {
		_, _ = other.Request(e.ctx, tools.Request{SessionID: s.ID, Workspace: e.ws, Mode: tools.ModeAsk, Call: shell("c1", "make")})
	}()
	waitUntil(t, "the call waits", func() bool { return len(other.All()) == 1 })
	if link.Registered() {
		t.Fatal("registered with no window")
	}

	for round := 1; round <= 2; round++ {
		ln, err := inbox.Listen(inbox.SocketPath(e.path))
		if err != nil {
			t.Fatal(err)
		}
		ctx, closeWindow := context.WithCancel(e.ctx)
		served := make(chan struct{})
		go func() { e.hub.Serve(ctx, ln); close(served) }()
		waitUntil(t, "the window opened later lists the call", func() bool {
			as := e.hub.Approvals(e.ctx)
			return len(as) == 1 && as[0].CallID == "c1" && as[0].Origin.Kind == inbox.OriginRun
		})
		if !link.Registered() {
			t.Fatalf("round %d: the call is listed but the link says it is not registered", round)
		}
		closeWindow()
		<-served
		waitUntil(t, "the link sees the window go", func() bool { return !link.Registered() })
	}
}

// A process does not talk to a socket in a folder others may write: someone else could have
// put it there to read its calls and answer them.
func TestClientRefusesASocketOthersCouldHavePut(t *testing.T) {
	e := newEnv(t)
	path := e.serve()
	if _, err := inbox.List(e.ctx, e.path); err != nil {
		t.Fatalf("the window's own socket: %v", err)
	}
	dir := filepath.Dir(path)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	if _, err := inbox.List(e.ctx, e.path); !errors.Is(err, inbox.ErrNoWindow) || !strings.Contains(err.Error(), "others may write") {
		t.Fatalf("a socket in a folder others may write: %v, want ErrNoWindow saying why", err)
	}
}
