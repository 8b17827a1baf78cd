package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/fsnotify/fsnotify"
)

// loop is the watcher's only goroutine after Watch returns.
func (w *Watcher) loop(ctx context.Context) {
	defer close(w.done)
	defer os.RemoveAll(w.barrier)
	defer w.goStale()
	defer close(w.warnings)
	defer close(w.updates)
	defer w.fsw.Close()

	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	defer debounce.Stop()
	var firstAt time.Time // when the oldest pending change arrived; zero when none

	var rescan *time.Ticker
	var rescanC <-chan time.Time
	defer func() {
		if rescan != nil {
			rescan.Stop()
		}
	}()

	var ready []Change // a batch the reader has not taken yet
	for {
		if w.degraded.Load() && rescan == nil {
			rescan = time.NewTicker(w.opts.RescanInterval)
			rescanC = rescan.C
		}
		var out chan<- []Change
		if len(ready) > 0 {
			out = w.updates
		}
		hadPending := len(w.pending) > 0
		recorded := w.recorded
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.warn(WarnOverflow, "the kernel dropped file events (too many at once); the file tree may be out of date until it is refreshed")
			} else {
				w.warn(WarnError, "file watcher: "+err.Error())
			}
		case <-rescanC:
			w.rescan()
		case <-debounce.C:
			if len(ready) == 0 {
				firstAt = time.Time{}
				ready = w.takeBatch()
			}
			// Otherwise the reader is behind: changes keep merging in pending (one
			// entry per path, so memory stays bounded) until it takes ready.
			continue
		case out <- ready:
			ready = nil
			if len(w.pending) > 0 {
				debounce.Reset(0)
			}
			continue
		}
		// (Re)arm the debounce when something was recorded, bounded by MaxDelay.
		if len(w.pending) == 0 || w.recorded == recorded {
			continue
		}
		now := time.Now()
		if !hadPending || firstAt.IsZero() {
			firstAt = now
		}
		wait := min(w.opts.Debounce, w.opts.MaxDelay-now.Sub(firstAt))
		debounce.Reset(max(wait, 0))
	}
}

// handle turns one fsnotify event into pending changes.
func (w *Watcher) handle(ev fsnotify.Event) {
	if w.barrierEvent(ev.Name) {
		return // Sync's marker, not a change of the folder
	}
	rel := w.rel(ev.Name)
	if rel == "." {
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			w.goStale()
			w.warn(WarnError, "the watched folder itself was removed or moved")
		}
		return
	}
	wasDir := w.watched[ev.Name]
	switch {
	case ev.Has(fsnotify.Create):
		fi, err := os.Lstat(ev.Name)
		if err != nil {
			return // created and removed before we looked: nothing to show
		}
		if w.ig.ignored(rel, fi.IsDir()) {
			return
		}
		w.record(rel, ChangeCreated, fi.IsDir())
		if fi.IsDir() {
			_ = w.addTree(rel, true) // errors are warnings inside addTree
		}
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		if w.ig.ignored(rel, wasDir) {
			return
		}
		op := ChangeRemoved
		if ev.Has(fsnotify.Rename) {
			op = ChangeRenamed
		}
		w.record(rel, op, wasDir)
		if wasDir {
			w.forget(ev.Name)
		}
	case ev.Has(fsnotify.Write):
		if w.ig.ignored(rel, false) {
			return
		}
		w.record(rel, ChangeChanged, false)
	case ev.Has(fsnotify.Chmod):
		// Not a change the person sees in a file tree, but one a checkpoint records (a
		// mode): the listeners hear it.
		if !w.ig.ignored(rel, wasDir) {
			w.notify(rel, ChangeChanged, wasDir)
		}
	}
}

// rescan walks the folders that have no watch and reports what changed since the
// last rescan.
func (w *Watcher) rescan() {
	next := w.scanUnwatched()
	paths := make([]string, 0, len(next))
	for p := range next {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		cur := next[p]
		old, ok := w.snap[p]
		switch {
		case !ok:
			w.record(p, ChangeCreated, cur.dir)
		case !cur.dir && (cur.size != old.size || !cur.mod.Equal(old.mod)):
			w.record(p, ChangeChanged, false)
		}
	}
	var gone []string
	for p := range w.snap {
		if _, ok := next[p]; !ok {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)
	for _, p := range gone {
		w.record(p, ChangeRemoved, w.snap[p].dir)
	}
	w.snap = next
}

// scanUnwatched stats every non-ignored path below the unwatched folders (not the
// folders themselves: their parents' watches report those).
func (w *Watcher) scanUnwatched() map[string]fileStamp {
	out := map[string]fileStamp{}
	for u := range w.unwatched {
		start := filepath.Join(w.root, filepath.FromSlash(u))
		_ = filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == start {
				return nil
			}
			r := w.rel(p)
			if w.ig.ignored(r, d.IsDir()) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			out[r] = fileStamp{mod: fi.ModTime(), size: fi.Size(), dir: d.IsDir()}
			return nil
		})
	}
	return out
}
