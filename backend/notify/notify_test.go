package notify

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/loopdesk/loopdesk/backend/testbus"
)

// server is a notification server on the test bus that records every call,
// as dunst or GNOME Shell would receive them.
type server struct {
	conn   *dbus.Conn
	mu     sync.Mutex
	calls  []call
	nextID uint32
}

type call struct {
	App, Icon, Summary, Body string
	Actions                  []string
	Hints                    map[string]dbus.Variant
}

func (s *server) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call{app, icon, summary, body, actions, hints})
	s.nextID++
	return s.nextID, nil
}

func (s *server) CloseNotification(id uint32) *dbus.Error {
	if err := s.conn.Emit(busPath, busIface+".NotificationClosed", id, uint32(ReasonClosed)); err != nil {
		return dbus.MakeFailedError(err)
	}
	return nil
}

func (s *server) GetCapabilities() ([]string, *dbus.Error) { return []string{"actions", "body"}, nil }

func (s *server) recorded() []call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]call(nil), s.calls...)
}

func startServer(t *testing.T, addr string) *server {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &server{conn: conn}
	if err := conn.Export(s, busPath, busIface); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(busName, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", busName, reply, err)
	}
	return s
}

// recorder collects events as the window's handler would receive them.
type recorder chan Event

func (r recorder) next(t *testing.T) Event {
	t.Helper()
	select {
	case ev := <-r:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
		return Event{}
	}
}

func TestNotifyShowsAndReportsTheClick(t *testing.T) {
	addr := testbus.Start(t)
	srv := startServer(t, addr)
	events := make(recorder, 8)
	n, err := Dial(addr, func(ev Event) { events <- ev })
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	ctx := context.Background()

	id, err := n.Notify(ctx, "Approval waiting", "run_shell_command: make test", "approval:s1:call_1")
	if err != nil {
		t.Fatal(err)
	}
	got := srv.recorded()
	if len(got) != 1 {
		t.Fatalf("server received %d calls, want 1", len(got))
	}
	c := got[0]
	if c.App != "Loopdesk" || c.Icon != "loopdesk" || c.Summary != "Approval waiting" || c.Body != "run_shell_command: make test" ||
		len(c.Actions) != 2 || c.Actions[0] != "default" || c.Hints["desktop-entry"].Value() != "loopdesk" {
		t.Fatalf("server received %+v", c)
	}

	// Another client's notification with the same action is not ours.
	if err := srv.conn.Emit(busPath, busIface+".ActionInvoked", id+100, "default"); err != nil {
		t.Fatal(err)
	}
	if err := srv.conn.Emit(busPath, busIface+".ActionInvoked", id, "default"); err != nil {
		t.Fatal(err)
	}
	if ev := events.next(t); ev != (Event{ID: id, Key: "approval:s1:call_1", Kind: Clicked}) {
		t.Fatalf("click reported as %+v", ev)
	}
	if err := n.CloseNotification(ctx, id); err != nil {
		t.Fatal(err)
	}
	if ev := events.next(t); ev != (Event{ID: id, Key: "approval:s1:call_1", Kind: Closed, Reason: ReasonClosed}) {
		t.Fatalf("close reported as %+v", ev)
	}
	// A closed notification's late click is dropped: the card may be gone.
	srv.conn.Emit(busPath, busIface+".ActionInvoked", id, "default")
	id2, err := n.Notify(ctx, "Run finished", "completed", "run:s1")
	if err != nil {
		t.Fatal(err)
	}
	srv.conn.Emit(busPath, busIface+".ActionInvoked", id2, "default")
	if ev := events.next(t); ev.ID != id2 || ev.Key != "run:s1" {
		t.Fatalf("after a closed notification's click, got %+v; want the next one's click", ev)
	}
}

func TestNotifyTurnedOffShowsNothing(t *testing.T) {
	addr := testbus.Start(t)
	srv := startServer(t, addr)
	n, err := Dial(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	n.SetEnabled(false)
	if _, err := n.Notify(context.Background(), "t", "b", "k"); !errors.Is(err, ErrDisabled) {
		t.Fatalf("Notify while off = %v, want ErrDisabled", err)
	}
	if got := srv.recorded(); len(got) != 0 {
		t.Fatalf("server received %+v while notifications were off", got)
	}
	n.SetEnabled(true)
	if _, err := n.Notify(context.Background(), "t", "b", "k"); err != nil || len(srv.recorded()) != 1 {
		t.Fatalf("after turning on again: %v, %d calls", err, len(srv.recorded()))
	}
}

func TestNotifyWithoutAServerFailsFast(t *testing.T) {
	addr := testbus.Start(t)
	n, err := Dial(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = n.Notify(ctx, "t", "b", "k")
	if err == nil || ctx.Err() != nil {
		t.Fatalf("Notify with no server = %v (ctx %v); want an immediate error", err, ctx.Err())
	}
	if err := n.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}
