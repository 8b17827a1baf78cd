package desktop

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"
)

// InstanceID is the single-instance lock's id (options.SingleInstanceLock's
// UniqueId) for the database at dbPath: one window per database, so a second
// launch on the same data goes to the open window, while a Loopdesk on
// another database (LOOPDESK_DB: a test, a second profile) is its own app.
// Wails turns it into the D-Bus name org.wails_app_<id with . and - as _>.SingleInstance.
func InstanceID(dbPath string) string {
	if abs, err := filepath.Abs(dbPath); err == nil {
		dbPath = abs
	}
	sum := sha256.Sum256([]byte(dbPath))
	return "io.loopdesk.loopdesk." + hex.EncodeToString(sum[:6])
}

// EventOpenFolder asks the page to open a new session in a folder, with an
// OpenFolder payload. It is emitted when a second launch names a folder
// (`loopdesk ~/src/project` while the window is open); the folder given to
// the first launch is fetched once with Instance.TakeFolder instead, because
// an event sent before the page subscribed would be lost.
const EventOpenFolder = "app:open-folder"

// OpenFolder is EventOpenFolder's payload: an absolute folder path.
type OpenFolder struct {
	Path string `json:"path"`
}

// Instance is the window's side of the single-instance lock: it brings the
// window forward on a second launch and hands the page the folder named on
// a command line. Safe for concurrent use; Wails calls SecondLaunch from its
// own goroutine.
type Instance struct {
	mu     sync.Mutex
	emit   func(name string, data any)
	show   func()
	folder string // the first launch's folder until the page takes it
}

// NewInstance starts with the first launch's folder ("" for none).
func NewInstance(folder string) *Instance { return &Instance{folder: folder} }

// Started connects the instance to the window once it exists: emit sends an
// event to the page, show un-minimises and raises the window. Second
// launches that arrived before are not replayed beyond the folder they left
// for TakeFolder.
func (in *Instance) Started(emit func(name string, data any), show func()) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.emit, in.show = emit, show
}

// SecondLaunch handles another `loopdesk [FOLDER]` started while this window
// runs, with its arguments already parsed (cli.ParseWindowArgs against the
// second process's working directory): the window comes forward, and a
// folder becomes EventOpenFolder. A parse error is logged only: the second
// process checked its arguments before handing them over, so one here means
// the folder vanished in between.
func (in *Instance) SecondLaunch(folder string, parseErr error) {
	in.mu.Lock()
	emit, show := in.emit, in.show
	if emit == nil && folder != "" && parseErr == nil {
		in.folder = folder // the page is not up yet: it will take it
	}
	in.mu.Unlock()
	if parseErr != nil {
		log.Printf("loopdesk: second launch: %v", parseErr)
	}
	if show != nil {
		show()
	}
	if emit != nil && folder != "" && parseErr == nil {
		emit(EventOpenFolder, OpenFolder{Path: folder})
	}
}

// TakeFolder returns the folder the window was launched with (or that a
// second launch left before the page was up) once, then "". The page calls
// it (through a bound method) when it has loaded.
func (in *Instance) TakeFolder() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	f := in.folder
	in.folder = ""
	return f
}

// instanceBusName and instanceBusPath are where Wails' single-instance lock
// listens (internal/frontend/desktop/linux/single_instance.go, v2.13): the
// running window owns the name and receives SendMessage(JSON of
// options.SecondInstanceData).
func instanceBusName(instanceID string) (name string, path dbus.ObjectPath) {
	id := "wails_app_" + strings.NewReplacer("-", "_", ".", "_").Replace(instanceID)
	return "org." + id + ".SingleInstance", dbus.ObjectPath("/org/" + id + "/SingleInstance")
}

// secondInstanceData is options.SecondInstanceData's wire form.
type secondInstanceData struct {
	Args             []string
	WorkingDirectory string
}

// HandOff gives a launch to the running window, if there is one, before
// this process starts GTK or opens the database: args go to that window's
// OnSecondInstanceLaunch as if Wails' own lock had sent them. It reports
// whether a running window took them; false with a nil error means none is
// running (or there is no session bus) and this process opens the window.
// instanceID is InstanceID(the database); conn is the session bus, or nil
// to connect to it.
func HandOff(conn *dbus.Conn, instanceID string, args []string) (bool, error) {
	if conn == nil {
		c, err := dbus.ConnectSessionBus()
		if err != nil {
			return false, nil // no session bus: no other instance can be found either
		}
		defer c.Close()
		conn = c
	}
	name, path := instanceBusName(instanceID)
	var owned bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&owned); err != nil {
		return false, fmt.Errorf("look for a running Loopdesk: %w", err)
	}
	if !owned {
		return false, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return false, fmt.Errorf("hand the launch to the running Loopdesk: %w", err)
	}
	msg, _ := json.Marshal(secondInstanceData{Args: args, WorkingDirectory: wd}) // strings always marshal
	err = conn.Object(name, path).Call(name+".SendMessage", 0, string(msg)).Store()
	var de *dbus.Error
	if errors.As(err, &de) && de.Name == "org.freedesktop.DBus.Error.ServiceUnknown" {
		return false, nil // it exited in between: this launch opens the window
	}
	if err != nil {
		return false, fmt.Errorf("hand the launch to the running Loopdesk: %w", err)
	}
	return true, nil
}
