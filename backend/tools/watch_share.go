package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// One watcher per folder. The window's file tree (Updates) and the checkpoint recorder's
// dirty set (a Listener) watch the same folders; Watches hands both the same Watcher, so a
// folder costs one inotify instance and one watch per subfolder however many parts use it.

// Listener hears what a Watcher sees, in the watcher's goroutine, before any debouncing:
// Change for every path that changed (Chmod included, which the tree does not show; dir says
// the path is or was a folder), Lost when changes may have been missed (the kernel dropped
// events, a folder could not be watched, the folder itself went away). Both must return
// quickly and must not call the Watcher.
type Listener struct {
	Change func(path string, op ChangeOp, dir bool)
	Lost   func()
}

// share is the part of a Watcher that serves more than one consumer: its listeners, the
// barrier that Sync writes into, and whether anyone reads Updates.
type share struct {
	barrier  string // a private folder outside the watched one, watched by the same instance
	batching bool   // guarded by lmu: when false nobody reads Updates, so nothing is batched
	stale    chan struct{}
	staleOne sync.Once

	lmu       sync.Mutex
	listeners map[int]Listener
	nextID    int

	smu     sync.Mutex
	waiting map[string]chan struct{}
	syncN   int
}

func (s *share) init() error {
	dir, err := os.MkdirTemp("", "loopdesk-watch-")
	if err != nil {
		return err
	}
	s.barrier, s.batching, s.stale = dir, true, make(chan struct{})
	s.listeners, s.waiting = map[int]Listener{}, map[string]chan struct{}{}
	return nil
}

// Listen adds l; the returned function removes it (call it once).
func (w *Watcher) Listen(l Listener) func() {
	w.lmu.Lock()
	defer w.lmu.Unlock()
	w.nextID++
	id := w.nextID
	w.listeners[id] = l
	return func() {
		w.lmu.Lock()
		delete(w.listeners, id)
		w.lmu.Unlock()
	}
}

// setBatching turns the batches of Updates on or off.
func (w *Watcher) setBatching(on bool) {
	w.lmu.Lock()
	w.batching = on
	w.lmu.Unlock()
}

// notify passes one change to the listeners; it reports whether Updates wants it too.
func (w *Watcher) notify(rel string, op ChangeOp, dir bool) bool {
	w.lmu.Lock()
	defer w.lmu.Unlock()
	for _, l := range w.listeners {
		if l.Change != nil {
			l.Change(rel, op, dir)
		}
	}
	return w.batching
}

func (w *Watcher) lost() {
	w.lmu.Lock()
	defer w.lmu.Unlock()
	for _, l := range w.listeners {
		if l.Lost != nil {
			l.Lost()
		}
	}
}

// goStale marks the watcher as no longer reporting its folder (stopped, or the folder went
// away): Watches starts a new one for the next consumer.
func (w *Watcher) goStale() { w.staleOne.Do(func() { close(w.stale) }) }

// Stale reports whether the watcher stopped or its folder was removed or moved away.
func (w *Watcher) Stale() bool {
	select {
	case <-w.stale:
		return true
	default:
		return false
	}
}

// Sync returns once every change made before it was called has been passed to the
// listeners: it writes a file into the private barrier folder, which the same inotify
// instance watches, and waits for that event (inotify keeps one instance's events in
// order). An error (ctx ended, the watcher stopped, 5 s without the event) means changes may
// be missing.
func (w *Watcher) Sync(ctx context.Context) error {
	w.smu.Lock()
	w.syncN++
	name := strconv.Itoa(w.syncN)
	ch := make(chan struct{})
	w.waiting[name] = ch
	w.smu.Unlock()
	defer func() {
		w.smu.Lock()
		delete(w.waiting, name)
		w.smu.Unlock()
	}()
	path := filepath.Join(w.barrier, name)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		return fmt.Errorf("sync the watcher of %s: %w", w.root, err)
	}
	defer os.Remove(path)
	timer := time.NewTimer(5 * time.Second)
	defer timer.Stop()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-w.done:
		return errors.New("the watcher stopped")
	case <-timer.C:
		return errors.New("the watcher's barrier timed out")
	}
}

// barrierEvent handles an event of the barrier folder; false when name is not in it.
func (w *Watcher) barrierEvent(name string) bool {
	if filepath.Dir(name) != w.barrier {
		return false
	}
	w.smu.Lock()
	if ch, ok := w.waiting[filepath.Base(name)]; ok {
		close(ch)
		delete(w.waiting, filepath.Base(name))
	}
	w.smu.Unlock()
	return true
}

// Watches shares one Watcher per folder among the parts of the app that watch it. Safe for
// concurrent use; the zero value is ready.
type Watches struct {
	mu sync.Mutex
	m  map[string]*sharedWatch
}

type sharedWatch struct {
	w           *Watcher
	refs, trees int
}

// Acquire returns the folder's watcher, started on first use (Watch with the default
// options); release (call it once) lets go, and the last release stops it. tree says the
// caller reads Updates (the window's file tree); a watcher no tree holds batches nothing, so
// its listeners cost only their own work.
func (s *Watches) Acquire(root string, tree bool) (*Watcher, func(), error) {
	abs, err := filepath.Abs(root)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("watch %s: %w", root, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]*sharedWatch{}
	}
	sh := s.m[abs]
	if sh == nil || sh.w.Stale() {
		w, err := Watch(context.Background(), abs, WatchOptions{})
		if err != nil {
			return nil, nil, err
		}
		sh = &sharedWatch{w: w}
		s.m[abs] = sh
	}
	sh.refs++
	if tree {
		sh.trees++
	}
	sh.w.setBatching(sh.trees > 0)
	var once sync.Once
	return sh.w, func() { once.Do(func() { s.release(abs, sh, tree) }) }, nil
}

func (s *Watches) release(abs string, sh *sharedWatch, tree bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sh.refs--
	if tree {
		sh.trees--
	}
	sh.w.setBatching(sh.trees > 0)
	if sh.refs > 0 {
		return
	}
	if s.m[abs] == sh {
		delete(s.m, abs)
	}
	_ = sh.w.Close()
}

// Count is how many folders have a watcher now (for tests and diagnostics).
func (s *Watches) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
