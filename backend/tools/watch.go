package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// ChangeOp is what happened to a path. The words are a recorded change's
// (checkpoint.ChangeKind: created, modified, deleted), so the page reads one
// vocabulary; a watcher also sees moves (renamed), a record also mode changes.
type ChangeOp string

const (
	ChangeCreated ChangeOp = "created"
	ChangeChanged ChangeOp = "modified"
	ChangeRemoved ChangeOp = "deleted"
	// ChangeRenamed: the path was moved away; its new name arrives as created.
	ChangeRenamed ChangeOp = "renamed"
)

// Change is one path that changed, relative to the watched root, slash-separated. It is
// also what the window's workspace:changed event carries. (A row's recorded change is
// checkpoint.Change: the watcher reports moves, a record reports contents.)
type Change struct {
	Path string   `json:"path"`
	Op   ChangeOp `json:"op"`
}

// WarningKind classifies watcher warnings.
type WarningKind string

const (
	// WarnWatchLimit: the inotify watch limit was reached; some folders are rescanned
	// periodically instead of watched, so their changes arrive late.
	WarnWatchLimit WarningKind = "watch_limit"
	// WarnOverflow: the kernel dropped events; the tree shown may be stale.
	WarnOverflow WarningKind = "overflow"
	// WarnError: any other problem (an unreadable folder, a failed watch).
	WarnError WarningKind = "error"
)

// Warning is a problem the person should know about; the watcher keeps going.
type Warning struct {
	Kind    WarningKind
	Message string
}

// WatchOptions tune a Watcher; the zero value is the default.
type WatchOptions struct {
	Debounce       time.Duration // quiet time that ends a batch (default 100 ms)
	MaxDelay       time.Duration // longest a continuing stream delays a batch (default 1 s)
	RescanInterval time.Duration // rescan period of unwatched folders (default 5 s)
	Ignore         []string      // extra gitignore-style patterns for the root
	NoGitignore    bool          // do not read .gitignore files
	// MaxWatches stops adding inotify watches after this many, as if the kernel
	// limit (fs.inotify.max_user_watches) had been reached. 0: only the kernel limits.
	MaxWatches int
}

func (o *WatchOptions) defaults() {
	if o.Debounce <= 0 {
		o.Debounce = 100 * time.Millisecond
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = time.Second
	}
	if o.RescanInterval <= 0 {
		o.RescanInterval = 5 * time.Second
	}
}

// Watcher reports changes below a folder, recursively, in debounced batches. One
// goroutine owns all of its state; it ends when ctx ends or Close is called, and
// then closes Updates and Warnings.
type Watcher struct {
	root string
	opts WatchOptions
	fsw  *fsnotify.Watcher
	ig   *ignoreMatcher
	fsys fs.FS

	updates  chan []Change
	warnings chan Warning
	cancel   context.CancelFunc
	done     chan struct{}
	once     sync.Once
	degraded atomic.Bool
	share    // listeners, Sync's barrier, batching (watch_share.go)

	// owned by the watcher goroutine (and by Watch before it starts)
	watched   map[string]bool      // absolute folders with an inotify watch
	unwatched map[string]bool      // relative folders rescanned instead of watched
	snap      map[string]fileStamp // last rescan of the unwatched folders
	pending   map[string]ChangeOp
	order     []string
	recorded  int // counts record calls, so only new changes re-arm the debounce
}

type fileStamp struct {
	mod  time.Time
	size int64
	dir  bool
}

var errWatchLimit = fmt.Errorf("watch limit reached: %w", syscall.ENOSPC)

// Watch starts watching root and returns once every folder is watched (the
// watcher is ready). Folders ignored by .gitignore, .git and node_modules are
// neither watched nor reported.
func Watch(ctx context.Context, root string, opts WatchOptions) (*Watcher, error) {
	opts.defaults()
	abs, err := filepath.Abs(root)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	fsw, err := fsnotify.NewBufferedWatcher(4096)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &Watcher{
		root: abs, opts: opts, fsw: fsw, ig: newIgnoreMatcher(opts.Ignore), fsys: os.DirFS(abs),
		updates:  make(chan []Change), // unbuffered: the loop's ready batch is the buffer
		warnings: make(chan Warning, 16),
		cancel:   cancel, done: make(chan struct{}),
		watched: map[string]bool{}, unwatched: map[string]bool{}, pending: map[string]ChangeOp{},
	}
	err = w.share.init()
	if err == nil {
		err = fsw.Add(w.barrier)
	}
	if err == nil {
		err = w.addTree(".", false)
	}
	if err != nil {
		cancel()
		fsw.Close()
		if w.barrier != "" {
			os.RemoveAll(w.barrier)
		}
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	if w.degraded.Load() {
		w.snap = w.scanUnwatched()
	}
	go w.loop(ctx)
	return w, nil
}

// Updates delivers batches of changes. It is closed when the watcher stops.
func (w *Watcher) Updates() <-chan []Change { return w.updates }

// Warnings delivers problems as they happen (a slow reader may miss some).
func (w *Watcher) Warnings() <-chan Warning { return w.warnings }

// Degraded reports whether some folders are rescanned instead of watched.
func (w *Watcher) Degraded() bool { return w.degraded.Load() }

// Close stops the watcher and waits for its goroutine. It is safe to call twice.
func (w *Watcher) Close() error {
	w.once.Do(w.cancel)
	<-w.done
	return nil
}

func (w *Watcher) rel(abs string) string {
	if strings.HasPrefix(abs, w.root+string(filepath.Separator)) {
		return filepath.ToSlash(abs[len(w.root)+1:]) // the common case, without Rel's cleaning
	}
	r, err := filepath.Rel(w.root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(r)
}

// addTree watches rel and every folder below it that is not ignored. When emit is
// set, it reports what it finds as created (a folder that just appeared may already
// hold files written before its watch existed). Each folder is watched before it is
// listed, so nothing created in between is missed. Listings are not sorted: only
// the set matters, and sorting is a measurable part of a walk.
func (w *Watcher) addTree(rel string, emit bool) error {
	fi, err := os.Lstat(w.abs(rel))
	if err == nil && !fi.IsDir() {
		err = ErrNotDirectory
	}
	if err != nil {
		if rel == "." {
			return err
		}
		return nil // gone again, or replaced by a file: its own event reports that
	}
	stack := []string{rel}
	for len(stack) > 0 {
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		abs := w.abs(dir)
		if err := w.addWatch(abs); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				w.degrade(dir, err) // the rescan covers this subtree
			} else {
				w.warn(WarnError, fmt.Sprintf("cannot watch %s: %v", dir, err))
			}
			continue
		}
		entries, err := readDirUnsorted(abs)
		if err != nil {
			if dir == "." {
				return err
			}
			continue // removed meanwhile or unreadable
		}
		if !w.opts.NoGitignore && hasEntry(entries, ".gitignore") {
			w.ig.loadFrom(w.fsys, dir)
		}
		for _, e := range entries {
			isDir := e.IsDir()
			if !emit && !isDir {
				continue // only folders get watches; files matter when reporting them
			}
			child := e.Name()
			if dir != "." {
				child = dir + "/" + child
			}
			if w.ig.ignored(child, isDir) {
				continue
			}
			if emit {
				w.record(child, ChangeCreated, isDir)
			}
			if isDir {
				stack = append(stack, child)
			}
		}
	}
	return nil
}

func (w *Watcher) abs(rel string) string {
	if rel == "." {
		return w.root
	}
	return w.root + string(filepath.Separator) + filepath.FromSlash(rel)
}

func readDirUnsorted(dir string) ([]fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func hasEntry(entries []fs.DirEntry, name string) bool {
	for _, e := range entries {
		if e.Name() == name {
			return true
		}
	}
	return false
}

func (w *Watcher) addWatch(abs string) error {
	if w.watched[abs] {
		return nil
	}
	if w.opts.MaxWatches > 0 && len(w.watched) >= w.opts.MaxWatches {
		return errWatchLimit
	}
	if err := w.fsw.Add(abs); err != nil {
		return err
	}
	w.watched[abs] = true
	return nil
}

func (w *Watcher) degrade(rel string, err error) {
	for u := range w.unwatched {
		if u == "." || rel == u || strings.HasPrefix(rel, u+"/") {
			return // already covered
		}
	}
	w.unwatched[rel] = true
	if w.degraded.Swap(true) {
		return
	}
	w.warn(WarnWatchLimit, fmt.Sprintf(
		"ran out of inotify watches after %d folders (%v); %s and other folders without a watch are rescanned every %s, so their changes show up late. Raise fs.inotify.max_user_watches (sysctl) to watch them live.",
		len(w.watched), err, rel, w.opts.RescanInterval))
}

func (w *Watcher) warn(kind WarningKind, msg string) {
	w.lost() // every warning means some changes may not be reported
	select {
	case w.warnings <- Warning{Kind: kind, Message: msg}:
	default: // nobody is listening closely; the watcher must not block on it
	}
}

// forget drops the watches of a folder that was removed or moved away, and of
// everything below it: inotify follows a moved folder's inode, so its old watches
// would report changes under the old name.
func (w *Watcher) forget(abs string) {
	for p := range w.watched {
		if p == abs || strings.HasPrefix(p, abs+string(filepath.Separator)) {
			delete(w.watched, p)
			_ = w.fsw.Remove(p) // already gone when the kernel dropped it
		}
	}
}

// record passes a change to the listeners and merges it into the pending batch (when a
// tree reads Updates).
func (w *Watcher) record(rel string, op ChangeOp, dir bool) {
	if !w.notify(rel, op, dir) {
		return
	}
	w.recorded++
	prev, seen := w.pending[rel]
	if !seen {
		w.pending[rel] = op
		w.order = append(w.order, rel)
		return
	}
	switch merged, keep := mergeOps(prev, op); {
	case keep:
		w.pending[rel] = merged
	default:
		delete(w.pending, rel)
	}
}

// mergeOps folds two changes of one path within a batch; keep=false means they
// cancel out (created then removed).
func mergeOps(prev, next ChangeOp) (ChangeOp, bool) {
	switch {
	case prev == ChangeCreated && (next == ChangeRemoved || next == ChangeRenamed):
		return "", false
	case prev == ChangeCreated:
		return ChangeCreated, true
	case (prev == ChangeRemoved || prev == ChangeRenamed) && next != ChangeRemoved && next != ChangeRenamed:
		return ChangeChanged, true // replaced in place
	}
	return next, true
}

func (w *Watcher) takeBatch() []Change {
	var out []Change
	for _, p := range w.order {
		if op, ok := w.pending[p]; ok {
			out = append(out, Change{Path: p, Op: op})
			delete(w.pending, p)
		}
	}
	w.order = w.order[:0]
	return out
}
