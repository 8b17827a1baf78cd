package desktop

import (
	"log"
	"sync"
)

// InstanceID is the single-instance lock's id (options.SingleInstanceLock's
// UniqueId). Wails turns it into the D-Bus name
// org.wails_app_io_loopdesk_loopdesk.SingleInstance on the session bus.
const InstanceID = "io.loopdesk.loopdesk"

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
