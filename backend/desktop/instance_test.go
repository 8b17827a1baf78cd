package desktop

import (
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/loopdesk/loopdesk/backend/testbus"
)

type emitted struct {
	mu     sync.Mutex
	events []OpenFolder
	shown  int
}

func (e *emitted) emit(name string, data any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if name == EventOpenFolder {
		e.events = append(e.events, data.(OpenFolder))
	}
}

func (e *emitted) show() { e.mu.Lock(); e.shown++; e.mu.Unlock() }

func TestInstanceHandsTheFolderToThePage(t *testing.T) {
	in := NewInstance("/home/me/first")
	// A second launch before the window is up: nothing to show yet, the folder waits.
	in.SecondLaunch("/home/me/early", nil)
	if got := in.TakeFolder(); got != "/home/me/early" {
		t.Fatalf("TakeFolder before start = %q, want the latest folder", got)
	}
	if got := in.TakeFolder(); got != "" {
		t.Fatalf("TakeFolder twice = %q, want it taken once", got)
	}
	var e emitted
	in.Started(e.emit, e.show)
	in.SecondLaunch("/home/me/project", nil)
	in.SecondLaunch("", nil) // `loopdesk` alone: only focus
	in.SecondLaunch("", os.ErrNotExist)
	if len(e.events) != 1 || e.events[0].Path != "/home/me/project" || e.shown != 3 {
		t.Fatalf("events %+v, shown %d; want one open-folder and the window shown each time", e.events, e.shown)
	}
	if b, _ := json.Marshal(e.events[0]); string(b) != `{"path":"/home/me/project"}` {
		t.Fatalf("payload %s", b)
	}
}

// runningWindow owns the single-instance name the way Wails' lock does and
// records what second launches send it.
type runningWindow struct{ got chan string }

func (w runningWindow) SendMessage(msg string) *dbus.Error { w.got <- msg; return nil }

func TestHandOffReachesTheRunningWindow(t *testing.T) {
	addr := testbus.Start(t)
	client, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	// Nobody running: this launch opens the window itself.
	id := InstanceID("/home/me/.local/share/loopdesk/loopdesk.db")
	if handed, err := HandOff(client, id, []string{"/tmp"}); handed || err != nil {
		t.Fatalf("HandOff with no window = %v, %v", handed, err)
	}

	owner, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	name, path := instanceBusName(id)
	if !strings.HasPrefix(name, "org.wails_app_io_loopdesk_loopdesk_") || !strings.HasSuffix(name, ".SingleInstance") ||
		string(path) != "/org/"+strings.TrimSuffix(strings.TrimPrefix(name, "org."), ".SingleInstance")+"/SingleInstance" {
		t.Fatalf("bus name %s %s differs from what Wails v2.13 derives from %q", name, path, id)
	}
	w := runningWindow{got: make(chan string, 1)}
	if err := owner.Export(w, path, name); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.RequestName(name, dbus.NameFlagDoNotQueue); err != nil {
		t.Fatal(err)
	}
	// A Loopdesk on another database is another app: it does not take the launch.
	if handed, err := HandOff(client, InstanceID("/tmp/other.db"), nil); handed || err != nil {
		t.Fatalf("HandOff to another database's window = %v, %v", handed, err)
	}
	handed, err := HandOff(client, id, []string{"/home/me/project"})
	if !handed || err != nil {
		t.Fatalf("HandOff with a window = %v, %v", handed, err)
	}
	var data struct {
		Args             []string
		WorkingDirectory string
	}
	if err := json.Unmarshal([]byte(<-w.got), &data); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if len(data.Args) != 1 || data.Args[0] != "/home/me/project" || data.WorkingDirectory != wd {
		t.Fatalf("the window received %+v", data)
	}
}
