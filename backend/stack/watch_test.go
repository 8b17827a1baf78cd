package stack_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// inotifyInstances counts this process's inotify instances (one per fsnotify watcher).
func inotifyInstances(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// One watcher per folder: once a run's checkpoint has watched the folder, the window's file
// tree showing it adds no inotify instance, and both hear a change made outside any call —
// the tree as an update, the checkpoint as an outside edit found by its dirty set (not by a
// full scan: only the first capture of a folder scans it whole).
func TestOneWatcherServesTheTreeAndTheCheckpoints(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "a.txt"), "a\n")
	e := newEnv(t, filepath.Join(dir, "loopdesk.db"), func(*store.DB) stack.Config {
		return stack.Config{Checkpoints: &checkpoint.Options{}}
	})
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "s1", Name: "run_shell_command", Arguments: `{"command":"true"}`}), fakeai.Text("one"))
	sid, res := e.run(ws, "first")
	if res.Status != core.StopCompleted {
		t.Fatalf("run: %+v", res)
	}
	if n := e.st.Watches.Count(); n != 1 {
		t.Fatalf("%d folders watched after the first capture, want 1", n)
	}
	before := inotifyInstances(t)
	tree, release, err := e.st.Watches.Acquire(ws, true) // what the window's Workspace tab does
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if after := inotifyInstances(t); after != before || e.st.Watches.Count() != 1 {
		t.Fatalf("showing the folder added a watcher: %d inotify instances, was %d; %d folders", after, before, e.st.Watches.Count())
	}

	write(t, filepath.Join(ws, "outside.txt"), "the person's editor\n")
	select {
	case batch := <-tree.Updates():
		if len(batch) != 1 || batch[0].Path != "outside.txt" {
			t.Fatalf("tree update = %+v, want outside.txt", batch)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the tree heard nothing")
	}
	// The next call's capture finds the outside edit through the shared watcher.
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "s2", Name: "run_shell_command", Arguments: `{"command":"true"}`}), fakeai.Text("two"))
	if res := e.cont(sid, "second"); res.Status != core.StopCompleted {
		t.Fatalf("run: %+v", res)
	}
	changes, err := e.st.Checkpoints.Changes(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range changes {
		if c.Path == "outside.txt" && c.By == checkpoint.ByOutside {
			found = true
		}
	}
	if !found {
		t.Fatalf("changes = %+v, want outside.txt recorded as an outside edit", changes)
	}
	release()
	e.close()
	if n := e.st.Watches.Count(); n != 0 {
		t.Fatalf("%d watchers left after the stack closed", n)
	}
}
