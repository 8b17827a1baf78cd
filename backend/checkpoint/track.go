package checkpoint

import (
	"context"
	"strings"
	"sync"

	"github.com/loopdesk/loopdesk/backend/tools"
)

// tracker collects the tracked paths of one folder that may have changed
// since the last take. It is what makes a checkpoint cost what changed
// rather than what is there: a capture stats and reads only the paths the
// kernel reported.
//
// It listens to the folder's one watcher (tools.Watches): the window's file
// tree and the checkpoints share it, so a folder has one inotify instance and
// one set of watches. The watcher skips what tools.Ignore skips, as the scan
// does.
//
// Ordering: take calls Watcher.Sync, which returns once every change made
// before the call has reached the listener. When the kernel drops events, a
// folder cannot be watched, the watcher rescans instead of watching, or a
// .gitignore changes, the tracker asks for a full rescan instead.
type tracker struct {
	w        *tools.Watcher
	release  func() // lets go of the shared watcher
	unlisten func()

	mu    sync.Mutex
	dirty map[string]bool // relative paths
	trees map[string]bool // relative folders whose whole content must be rescanned
	full  bool
}

func startTracker(ws *tools.Watches, root string) (*tracker, error) {
	w, release, err := ws.Acquire(root, false)
	if err != nil {
		return nil, err
	}
	// The first take is a full scan: nothing was heard before the listener.
	t := &tracker{w: w, release: release, dirty: map[string]bool{}, trees: map[string]bool{}, full: true}
	t.unlisten = w.Listen(tools.Listener{Change: t.change, Lost: t.lost})
	return t, nil
}

func (t *tracker) close() {
	t.unlisten()
	t.release()
}

func (t *tracker) change(rel string, op tools.ChangeOp, dir bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if strings.HasSuffix(rel, ".gitignore") {
		t.full = true // what is tracked may have changed
	}
	t.dirty[rel] = true
	if dir && op != tools.ChangeChanged {
		// A folder that appeared may hold files written before its watch existed; one that
		// went away (or was moved) takes what was below it.
		t.trees[rel] = true
	}
}

func (t *tracker) lost() {
	t.mu.Lock()
	t.full = true
	t.mu.Unlock()
}

// take waits until every change made before the call has been seen, then
// returns and clears what changed. full means the caller must rescan the
// whole folder.
func (t *tracker) take(ctx context.Context) (dirty, trees map[string]bool, full bool) {
	err := t.w.Sync(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	dirty, trees = t.dirty, t.trees
	// A degraded watcher rescans some folders on a timer: their changes may not be heard yet.
	full = t.full || err != nil || t.w.Degraded() || t.w.Stale()
	t.dirty, t.trees, t.full = map[string]bool{}, map[string]bool{}, false
	return dirty, trees, full
}
