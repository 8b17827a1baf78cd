package inbox_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// serve opens the window's socket for e's database.
func (e *env) serve() string {
	e.t.Helper()
	dir, err := os.MkdirTemp("", "ld") // short: a socket's path has at most 107 bytes
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { os.RemoveAll(dir) })
	e.t.Setenv("XDG_RUNTIME_DIR", dir)
	path := inbox.SocketPath(e.path)
	ln, err := inbox.Listen(path)
	if err != nil {
		e.t.Fatal(err)
	}
	done := make(chan struct{})
	ctx, cancel := context.WithCancel(e.ctx)
	go func() { e.hub.Serve(ctx, ln); close(done) }()
	e.t.Cleanup(func() { cancel(); <-done })
	return path
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSocketIsPrivateToTheUser(t *testing.T) {
	e := newEnv(t)
	path := e.serve()
	if !strings.HasPrefix(path, os.Getenv("XDG_RUNTIME_DIR")+"/loopdesk/") || !strings.HasSuffix(path, ".sock") {
		t.Errorf("socket at %s", path)
	}
	dir, _ := os.Stat(filepath.Dir(path))
	sock, _ := os.Stat(path)
	if dir.Mode().Perm() != 0o700 || sock.Mode().Perm() != 0o600 || sock.Mode()&os.ModeSocket == 0 {
		t.Errorf("folder %v, socket %v; want 0700 and a 0600 socket", dir.Mode(), sock.Mode())
	}
	if _, err := inbox.Listen(path); !errors.Is(err, inbox.ErrInUse) {
		t.Errorf("a second window on the same database: %v, want ErrInUse", err)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	if p := inbox.SocketPath(e.path); !strings.HasPrefix(p, filepath.Join(os.TempDir(), "loopdesk-")) {
		t.Errorf("without XDG_RUNTIME_DIR the socket is at %s", p)
	}
}

func TestCheckPeerRefusesAnotherUser(t *testing.T) {
	uid := os.Getuid()
	if err := inbox.CheckPeer(&unix.Ucred{Pid: 42, Uid: uint32(uid)}, uid); err != nil {
		t.Errorf("the same user refused: %v", err)
	}
	err := inbox.CheckPeer(&unix.Ucred{Pid: 42, Uid: uint32(uid + 1)}, uid)
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("another user: %v", err)
	}
	if inbox.CheckPeer(nil, uid) == nil {
		t.Error("unknown credentials accepted")
	}
}

// line sends one line on c and reads the reply.
func line(t *testing.T, c net.Conn, r *bufio.Reader, s string) map[string]any {
	t.Helper()
	if _, err := c.Write([]byte(s + "\n")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	l, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("no reply to %q: %v", s, err)
	}
	var m map[string]any
	if err := json.Unmarshal(l, &m); err != nil {
		t.Fatalf("reply %q: %v", l, err)
	}
	return m
}

func TestSocketRefusesBadMessagesWithoutHarm(t *testing.T) {
	e := newEnv(t)
	path := e.serve()
	s := e.session("One", e.ws, nil)
	d := e.ask(s, shell("c1", "ls"))
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	for _, bad := range []string{`not json`, `{"v":99,"op":"list"}`, `{"v":1,"op":"explode"}`, `{"v":1,"op":"answer"}`,
		`{"v":1,"op":"register","origin":{"kind":"window"}}`, `[]`, `{"v":1,"op":"always","call_id":"c1","scope":"galaxy"}`} {
		m := line(t, c, r, bad)
		if m["ok"] == true || m["code"] != "invalid" || m["error"] == "" {
			t.Errorf("%s: reply %v, want an invalid-input error", bad, m)
		}
	}
	// The same connection and the call are unharmed.
	m := line(t, c, r, `{"v":1,"op":"list"}`)
	if m["ok"] != true {
		t.Fatalf("list after bad messages: %v", m)
	}
	if as := m["view"].(map[string]any)["approvals"].([]any); len(as) != 1 {
		t.Fatalf("approvals %v", as)
	}
	m = line(t, c, r, `{"v":1,"op":"answer","answer":{"call_id":"nope","approve":true}}`)
	if m["code"] != "not_pending" {
		t.Errorf("an unknown call: %v", m)
	}
	// A line longer than the protocol allows ends that connection only.
	big, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	go big.Write([]byte(strings.Repeat("x", 17<<20)))
	if v, err := inbox.List(e.ctx, e.path); err != nil || len(v.Approvals) != 1 {
		t.Fatalf("another client after a huge line: %v, %v", v, err)
	}
	if err := inbox.Send(e.ctx, e.path, inbox.Answer{CallID: "c1", Approve: true}); err != nil {
		t.Fatal(err)
	}
	if got := decision(t, d); !got.Approved || got.By != inbox.ByInbox {
		t.Fatalf("decision %+v", got)
	}
}

func TestRegisteredProcessCallsAnsweredThroughTheWindowAndGoneWhenItIs(t *testing.T) {
	e := newEnv(t)
	e.serve()
	if _, err := inbox.List(e.ctx, filepath.Join(t.TempDir(), "other.db")); !errors.Is(err, inbox.ErrNoWindow) {
		t.Fatalf("a database no window has open: %v", err)
	}
	// The other process: its own Approver on the same database.
	other := tools.NewApprover(stack.Rules{DB: e.db})
	local := &inbox.Local{DB: e.db, Approver: other}
	reg, err := inbox.Register(e.ctx, e.path, local, inbox.Process{Kind: inbox.OriginACP, PID: 1, Client: "zed"})
	if err != nil {
		t.Fatal(err)
	}
	s := e.session("Editor's", e.ws, nil)
	decided := make(chan tools.Decision, 2)
	for _, id := range []string{"r1", "r2"} {
		go func() {
			d, _ := other.Request(e.ctx, tools.Request{SessionID: s.ID, Workspace: e.ws, Mode: tools.ModeAsk, Call: shell(id, "make")})
			decided <- d
		}()
	}
	waitUntil(t, "the process's calls are in the window's inbox", func() bool { return len(e.hub.Approvals(e.ctx)) == 2 })
	a := e.hub.Approvals(e.ctx)[0]
	if a.Origin.Kind != inbox.OriginACP || a.Origin.Client != "zed" || a.Origin.PID != os.Getpid() || a.SessionTitle != "Editor's" {
		t.Fatalf("origin %+v (the pid is the socket's peer's, not the one claimed), title %q", a.Origin, a.SessionTitle)
	}
	if err := e.hub.Answer(e.ctx, inbox.Answer{CallID: "r1", Approve: false, Reason: "not now"}); err != nil {
		t.Fatal(err)
	}
	if d := decision(t, decided); d.Approved || d.By != inbox.ByInbox || d.Reason != "not now" {
		t.Fatalf("decision in the other process %+v", d)
	}
	if err := e.hub.Answer(e.ctx, inbox.Answer{CallID: "r1", Approve: true}); !errors.Is(err, inbox.ErrNotPending) {
		t.Fatalf("a second answer: %v", err)
	}
	reg.Close() // the process goes away (its connection closes)
	waitUntil(t, "its calls leave the inbox", func() bool { return len(e.hub.Approvals(e.ctx)) == 0 })
	if err := e.hub.Answer(e.ctx, inbox.Answer{CallID: "r2", Approve: true}); !errors.Is(err, inbox.ErrNotPending) {
		t.Fatalf("answering a call of a process that went away: %v", err)
	}
}
