package checkpoint

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// tracker collects the tracked paths of one folder that may have changed
// since the last take, from inotify. It is what makes a checkpoint cost
// what changed rather than what is there: a capture stats and reads only
// the paths the kernel reported.
//
// Ordering: inotify queues the events of one instance in the order they
// happened, so after a file written in a private folder watched by the same
// instance is reported (sync), every change made before sync was called has
// been seen. When the kernel drops events, a watch cannot be added, or a
// .gitignore changes, the tracker asks for a full rescan instead.
type tracker struct {
	root    string // absolute folder
	barrier string // private folder outside the workspace
	fsw     *fsnotify.Watcher
	done    chan struct{}

	mu      sync.Mutex
	ig      *tools.Ignore
	dirty   map[string]bool // relative paths
	trees   map[string]bool // relative folders whose whole content must be rescanned
	full    bool
	waiting map[string]chan struct{}
	watched map[string]bool // absolute folders with a watch
	n       int
}

func startTracker(root string) (*tracker, error) {
	fsw, err := fsnotify.NewBufferedWatcher(4096)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "loopdesk-checkpoint-")
	if err != nil {
		fsw.Close()
		return nil, err
	}
	t := &tracker{root: root, barrier: dir, fsw: fsw, done: make(chan struct{}),
		ig: tools.NewIgnore(os.DirFS(root)), dirty: map[string]bool{}, trees: map[string]bool{},
		waiting: map[string]chan struct{}{}, watched: map[string]bool{}, full: true}
	if err := fsw.Add(dir); err != nil {
		t.close()
		return nil, err
	}
	if err := t.addTree(""); err != nil {
		t.close()
		return nil, err
	}
	go t.loop()
	return t, nil
}

func (t *tracker) close() {
	t.fsw.Close()
	if t.done != nil {
		select {
		case <-t.done:
		case <-time.After(time.Second):
		}
	}
	os.RemoveAll(t.barrier)
}

// addTree watches rel and every tracked folder below it. Called with t.mu
// held or before the loop starts.
func (t *tracker) addTree(rel string) error {
	start := filepath.Join(t.root, filepath.FromSlash(rel))
	return filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start {
				return err
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		r := t.rel(p)
		if r != "" && t.ig.Ignored(r, true) {
			return fs.SkipDir
		}
		if err := t.fsw.Add(p); err != nil {
			return err // the watch limit: the caller falls back to full scans
		}
		t.watched[p] = true
		return nil
	})
}

func (t *tracker) rel(abs string) string {
	r, err := filepath.Rel(t.root, abs)
	if err != nil || r == "." {
		return ""
	}
	return filepath.ToSlash(r)
}

func (t *tracker) loop() {
	defer close(t.done)
	for {
		select {
		case ev, ok := <-t.fsw.Events:
			if !ok {
				return
			}
			t.handle(ev)
		case err, ok := <-t.fsw.Errors:
			if !ok {
				return
			}
			_ = err // overflow or a failed read: changes may be missing
			t.mu.Lock()
			t.full = true
			t.mu.Unlock()
		}
	}
}

func (t *tracker) handle(ev fsnotify.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if filepath.Dir(ev.Name) == t.barrier {
		if ch, ok := t.waiting[filepath.Base(ev.Name)]; ok && ev.Has(fsnotify.Create) {
			close(ch)
			delete(t.waiting, filepath.Base(ev.Name))
		}
		return
	}
	rel := t.rel(ev.Name)
	if rel == "" {
		t.full = true // the folder itself moved or went away
		return
	}
	if strings.HasSuffix(rel, ".gitignore") {
		t.full = true
		t.ig = tools.NewIgnore(os.DirFS(t.root))
	}
	wasDir := t.watched[ev.Name]
	fi, err := os.Lstat(ev.Name)
	isDir := err == nil && fi.IsDir()
	if t.ig.Ignored(rel, isDir || wasDir) {
		return
	}
	t.dirty[rel] = true
	if wasDir && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
		t.fsw.Remove(ev.Name) // a moved folder's watch would report under the old name
		delete(t.watched, ev.Name)
		t.trees[rel] = true
	}
	if ev.Has(fsnotify.Create) && isDir {
		// Files created in it before the watch was added sent no event:
		// rescan the whole folder.
		t.trees[rel] = true
		if err := t.addTree(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.full = true
		}
	}
}

// take waits until every change made before the call has been seen, then
// returns and clears what changed. full means the caller must rescan the
// whole folder.
func (t *tracker) take(ctx context.Context) (dirty, trees map[string]bool, full bool) {
	t.mu.Lock()
	t.n++
	name := strconv.Itoa(t.n)
	ch := make(chan struct{})
	t.waiting[name] = ch
	t.mu.Unlock()
	err := os.WriteFile(filepath.Join(t.barrier, name), nil, 0o600)
	if err == nil {
		select {
		case <-ch:
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(5 * time.Second):
			err = errors.New("barrier timed out")
		}
		os.Remove(filepath.Join(t.barrier, name))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.waiting, name)
	dirty, trees, full = t.dirty, t.trees, t.full || err != nil
	t.dirty, t.trees, t.full = map[string]bool{}, map[string]bool{}, false
	return dirty, trees, full
}
