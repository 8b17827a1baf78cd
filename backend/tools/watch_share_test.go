package tools

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Watches hands every consumer of a folder the same watcher and stops it with the last
// release; a listener hears a change (a chmod included, which the tree does not show) once
// Sync returns, without reading Updates.
func TestWatchesShareOneWatcherPerFolder(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "f.txt")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ws Watches
	a, releaseA, err := ws.Acquire(root, false)
	if err != nil {
		t.Fatal(err)
	}
	b, releaseB, err := ws.Acquire(root+"/.", true)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || ws.Count() != 1 {
		t.Fatalf("two watchers for one folder (count %d)", ws.Count())
	}
	var mu sync.Mutex
	heard := map[string]ChangeOp{}
	stop := a.Listen(Listener{Change: func(p string, op ChangeOp, _ bool) { mu.Lock(); heard[p] = op; mu.Unlock() }})
	defer stop()
	if err := os.Chmod(f, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "g.txt"), []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := a.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if heard["f.txt"] != ChangeChanged || heard["g.txt"] == "" {
		t.Errorf("heard %v; want the chmod of f.txt and g.txt", heard)
	}
	mu.Unlock()
	releaseB()
	releaseB() // twice is once
	if a.Stale() || ws.Count() != 1 {
		t.Fatal("a release stopped a watcher still held")
	}
	releaseA()
	if !a.Stale() || ws.Count() != 0 {
		t.Fatal("the last release left the watcher running")
	}
	if err := a.Sync(context.Background()); err == nil {
		t.Fatal("Sync on a stopped watcher succeeded")
	}
}
