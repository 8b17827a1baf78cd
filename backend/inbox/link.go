package inbox

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/loopdesk/loopdesk/backend/tools"
)

// Link keeps a process registered with the window of its database while it lives: at once
// when a window has the database open, else as soon as one opens it, and again each time a
// window comes back after it went. It waits for the window's socket with inotify on the
// socket's folder (nothing is done while no window comes); where inotify cannot be had it
// looks for the socket once a second. Safe for concurrent use.
type Link struct {
	dbPath string
	local  *Local
	origin Process

	mu       sync.Mutex
	reg      *Registration
	watchers tools.Watchers
	stop     context.CancelFunc
	done     chan struct{}
}

// retryAfter is how soon a registration is tried again after the socket appeared but did
// not accept yet (it is made before the window listens on it).
const retryAfter = 100 * time.Millisecond

// Keep links this process's inbox (local) to the window of the database at dbPath, as
// origin, until ctx ends or Close is called.
func Keep(ctx context.Context, dbPath string, local *Local, origin Process) *Link {
	ctx, stop := context.WithCancel(ctx)
	l := &Link{dbPath: dbPath, local: local, origin: origin, stop: stop, done: make(chan struct{})}
	appeared := watchSocket(ctx, SocketPath(dbPath)) // before the first try: a window opening meanwhile is seen
	go l.run(ctx, appeared)
	return l
}

// Watch calls f, with no lock held, each time the process registered with a window or its
// window went away. It returns the cancel.
func (l *Link) Watch(f func()) (cancel func()) { return l.watchers.Add(f) }

// Registered reports whether a window's inbox lists this process's calls now.
func (l *Link) Registered() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reg != nil
}

// Changed sends the window, if there is one, this process's waiting calls again (and makes
// it read its ended list again).
func (l *Link) Changed() {
	l.mu.Lock()
	reg := l.reg
	l.mu.Unlock()
	if reg != nil {
		reg.Changed()
	}
}

// Close ends the link: the window forgets this process's calls and no window is waited for.
func (l *Link) Close() {
	l.stop()
	<-l.done
}

func (l *Link) run(ctx context.Context, appeared <-chan struct{}) {
	defer close(l.done)
	var retry <-chan time.Time
	for try := true; ; {
		if try {
			if reg, err := Register(ctx, l.dbPath, l.local, l.origin); err == nil {
				l.set(reg)
				select {
				case <-reg.Done():
				case <-ctx.Done():
				}
				reg.Close()
				l.set(nil)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-appeared:
			// The socket is made before the window listens on it: one more try shortly
			// covers a first one that came too early.
			try, retry = true, time.After(retryAfter)
		case <-retry:
			try, retry = true, nil
		}
	}
}

func (l *Link) set(reg *Registration) {
	l.mu.Lock()
	l.reg = reg
	l.mu.Unlock()
	l.watchers.Notify()
}

// watchSocket signals (coalesced) each time the socket at path may have appeared, until ctx
// ends: inotify on its folder (made private to the user if missing, as Listen makes it),
// else a look once a second.
func watchSocket(ctx context.Context, path string) <-chan struct{} {
	ch := make(chan struct{}, 1)
	signal := func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	dir, name := filepath.Dir(path), filepath.Base(path)
	_ = os.MkdirAll(dir, 0o700) // the window's Listen checks who owns it
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err == nil {
		if _, err = unix.InotifyAddWatch(fd, dir, unix.IN_CREATE|unix.IN_ATTRIB|unix.IN_MOVED_TO); err != nil {
			unix.Close(fd)
		}
	}
	if err != nil {
		go pollSocket(ctx, path, signal)
		return ch
	}
	f := os.NewFile(uintptr(fd), "inotify") // non-blocking: reads wait in the runtime's poller, Close ends them
	context.AfterFunc(ctx, func() { f.Close() })
	go func() {
		buf := make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
		for {
			n, err := f.Read(buf)
			if err != nil {
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				start := off + unix.SizeofInotifyEvent
				off = start + int(ev.Len)
				if off > n {
					break
				}
				switch {
				case ev.Mask&unix.IN_Q_OVERFLOW != 0 || cstring(buf[start:off]) == name:
					signal() // an overflow may have hidden the socket's event
				case ev.Mask&unix.IN_IGNORED != 0:
					go pollSocket(ctx, path, signal) // the folder went: look for it instead
					f.Close()
					return
				}
			}
		}
	}()
	return ch
}

// pollSocket signals once a second while the socket at path exists.
func pollSocket(ctx context.Context, path string, signal func()) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := os.Stat(path); err == nil {
				signal()
			}
		}
	}
}

// cstring is a NUL-padded name as a string.
func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
