package desktop

import (
	"context"
	"sync"

	"github.com/loopdesk/loopdesk/backend/tools"
)

// Events the window receives about the workspace it shows.
const (
	EventWorkspaceChanged = "workspace:changed"
	EventWorkspaceWarning = "workspace:warning"
)

// WorkspaceChanged is the payload of EventWorkspaceChanged.
type WorkspaceChanged struct {
	Workspace string         `json:"workspace"`
	Changes   []tools.Change `json:"changes"`
}

// WorkspaceWarning is the payload of EventWorkspaceWarning (e.g. inotify
// watches ran out and the tree is now refreshed by periodic rescans).
type WorkspaceWarning struct {
	Workspace string `json:"workspace"`
	Message   string `json:"message"`
}

// Watches keeps the window's file tree on the watcher of the workspace it shows. Show
// switches it; its events go to Emit. The watcher is the folder's one (Shared, the stack's:
// the checkpoint recorder listens to the same one). Safe for concurrent use.
type Watches struct {
	Emit   func(name string, data any)
	Shared *tools.Watches // nil: a registry of its own

	mu     sync.Mutex
	root   string
	cancel context.CancelFunc
	done   chan struct{}
}

// Show watches root ("" stops watching). Watching the same root again is a
// no-op. It returns the watcher's start-up error, if any.
func (w *Watches) Show(ctx context.Context, root string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if root == w.root && w.cancel != nil {
		return nil
	}
	w.stopLocked()
	if root == "" {
		return nil
	}
	if w.Shared == nil {
		w.Shared = &tools.Watches{}
	}
	watcher, release, err := w.Shared.Acquire(root, true)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	w.root, w.cancel, w.done = root, cancel, done
	go func() {
		defer close(done)
		defer release()
		updates, warnings := watcher.Updates(), watcher.Warnings()
		for updates != nil || warnings != nil {
			select {
			case ch, ok := <-updates:
				if !ok {
					updates = nil
					continue
				}
				w.Emit(EventWorkspaceChanged, WorkspaceChanged{Workspace: root, Changes: ch})
			case warn, ok := <-warnings:
				if !ok {
					warnings = nil
					continue
				}
				w.Emit(EventWorkspaceWarning, WorkspaceWarning{Workspace: root, Message: warn.Message})
			case <-wctx.Done():
				return
			}
		}
	}()
	return nil
}

// Close stops the watcher and waits for it.
func (w *Watches) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopLocked()
}

func (w *Watches) stopLocked() {
	if w.cancel != nil {
		w.cancel()
		<-w.done
	}
	w.root, w.cancel, w.done = "", nil, nil
}
