package desktop_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/notify"
	"github.com/loopdesk/loopdesk/backend/testbus"
)

const (
	notifPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifIface = "org.freedesktop.Notifications"
)

// notifServer is a notification server on the private bus recording what it is asked to show,
// as dunst would receive it.
type notifServer struct {
	conn   *dbus.Conn
	mu     sync.Mutex
	shown  []shownNotification
	closed []uint32
}

type shownNotification struct {
	ID            uint32
	Summary, Body string
}

func (s *notifServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := uint32(len(s.shown) + 1)
	s.shown = append(s.shown, shownNotification{id, summary, body})
	return id, nil
}

func (s *notifServer) CloseNotification(id uint32) *dbus.Error {
	s.mu.Lock()
	s.closed = append(s.closed, id)
	s.mu.Unlock()
	if err := s.conn.Emit(notifPath, notifIface+".NotificationClosed", id, uint32(3)); err != nil {
		return dbus.MakeFailedError(err)
	}
	return nil
}

func (s *notifServer) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"actions", "body"}, nil
}

func (s *notifServer) recorded() ([]shownNotification, []uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]shownNotification(nil), s.shown...), append([]uint32(nil), s.closed...)
}

func startNotifServer(t *testing.T, addr string) *notifServer {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &notifServer{conn: conn}
	if err := conn.Export(s, notifPath, notifIface); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(notifIface, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own the notification service: %v %v", reply, err)
	}
	return s
}

// waitHandled polls until the notifications have handled n events of the loop.
func waitHandled(t *testing.T, svc *desktop.Services, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for svc.NotificationEventsHandled() < n {
		if time.Now().After(deadline) {
			t.Fatalf("notifications handled %d events, want %d", svc.NotificationEventsHandled(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestNotificationsWhenTheWindowIsNotFocused(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	addr := testbus.Start(t)
	daemon := startNotifServer(t, addr)
	n, err := notify.Dial(addr, app.svc.NotificationEvent)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	var raised sync.WaitGroup
	raised.Add(1)
	app.svc.StartNotifications(n, raised.Done)
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	handled := 0
	// runWithApproval runs one turn whose shell call waits, denies it, and waits until the
	// notifications have seen the request, the answer and the end of the run.
	runWithApproval := func(callID string) {
		t.Helper()
		srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: callID, Name: "run_shell_command", Arguments: `{"command":"make test"}`}),
			fakeai.Text("ok"))
		runID, err := app.SendMessage(s.ID, "test it")
		if err != nil {
			t.Fatal(err)
		}
		app.rec.waitFor(t, "approval_requested", func(ev map[string]any) bool {
			return ev["type"] == "approval_requested" && ev["call_id"] == callID && ev["run_id"] == runID
		})
		waitHandled(t, app.svc, handled+1)
		if callID == "c1" {
			clickFirst(t, daemon, app)
		}
		if err := app.Decide(s.ID, callID, desktop.DecisionInput{Approved: false, Reason: "not now"}); err != nil {
			t.Fatal(err)
		}
		app.rec.runFinished(t, runID)
		handled += 3
		waitHandled(t, app.svc, handled)
	}

	// Not focused: one notification naming the tool; a click raises the window and asks the
	// page for that card; the answer withdraws it; the end of the run is one more.
	app.svc.Window.SetFocused(false)
	runWithApproval("c1")
	raised.Wait()
	shown, closed := daemon.recorded()
	if len(shown) != 2 || !strings.Contains(shown[0].Summary+shown[0].Body, "run_shell_command") ||
		!strings.Contains(shown[0].Body, "make test") || !strings.HasPrefix(shown[1].Summary, "Run ") {
		t.Fatalf("shown = %+v; want the approval naming run_shell_command, then the run's end", shown)
	}
	if len(closed) != 1 || closed[0] != shown[0].ID {
		t.Fatalf("withdrawn = %v; want the approval's notification (%d) once answered", closed, shown[0].ID)
	}

	// Focused: nothing.
	app.svc.Window.SetFocused(true)
	runWithApproval("c2")
	if shown, _ := daemon.recorded(); len(shown) != 2 {
		t.Fatalf("while focused the server was asked to show %+v", shown[2:])
	}

	// Turned off in Settings (saved with the others): nothing, even unfocused.
	settings, err := app.GetSettings()
	if err != nil || !settings.Notifications {
		t.Fatalf("notifications are on by default: %+v, %v", settings, err)
	}
	off := false
	if saved, err := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", Notifications: &off}); err != nil || saved.Notifications {
		t.Fatalf("turn off: %+v, %v", saved, err)
	}
	app.svc.Window.SetFocused(false)
	runWithApproval("c3")
	if shown, _ := daemon.recorded(); len(shown) != 2 {
		t.Fatalf("turned off, the server was asked to show %+v", shown[2:])
	}
	// Saving settings without the field keeps the choice.
	if saved, _ := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model"}); saved.Notifications {
		t.Fatal("saving other settings turned notifications back on")
	}
}

// clickFirst clicks the first notification and expects the window raised and the page told
// which card to show.
func clickFirst(t *testing.T, daemon *notifServer, app *testApp) {
	t.Helper()
	shown, _ := daemon.recorded()
	if len(shown) != 1 {
		t.Fatalf("the server was asked to show %d notifications, want exactly 1: %+v", len(shown), shown)
	}
	if err := daemon.conn.Emit(notifPath, notifIface+".ActionInvoked", shown[0].ID, "default"); err != nil {
		t.Fatal(err)
	}
	ev := app.rec.waitFor(t, desktop.EventFocusCard, func(ev map[string]any) bool { return ev["_event"] == desktop.EventFocusCard })
	if ev["call_id"] != "c1" || ev["run_id"] == "" {
		t.Fatalf("focus event = %v; want the waiting call c1", ev)
	}
}
