package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

func startWatch(t *testing.T, root string, opts WatchOptions) *Watcher {
	t.Helper()
	if opts.Debounce == 0 {
		opts.Debounce = 50 * time.Millisecond
	}
	w, err := Watch(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// collector gathers updates until a condition on everything seen so far holds.
type collector struct {
	w       *Watcher
	batches int
	last    map[string]ChangeOp // latest op per path
	ever    map[Change]bool
	all     []Change
}

func newCollector(w *Watcher) *collector {
	return &collector{w: w, last: map[string]ChangeOp{}, ever: map[Change]bool{}}
}

func (c *collector) until(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !done() {
		select {
		case batch, ok := <-c.w.Updates():
			if !ok {
				t.Fatalf("updates closed while waiting for %s", what)
			}
			c.batches++
			for _, ch := range batch {
				c.last[ch.Path] = ch.Op
				c.ever[ch] = true
				c.all = append(c.all, ch)
			}
		case <-deadline:
			t.Fatalf("timed out waiting for %s; seen %v", what, c.all)
		}
	}
}

func (c *collector) sawOp(path string, op ChangeOp) func() bool {
	// Ever, not last: a write that straddles two batches adds a "changed".
	return func() bool { return c.ever[Change{Path: path, Op: op}] }
}

func TestWatcherCoalescesABurstIntoAFewUpdates(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, root, WatchOptions{})
	c := newCollector(w)
	const n = 1000
	for i := range n {
		writeFile(t, filepath.Join(root, "out", fmt.Sprintf("f%04d.txt", i)), "x")
	}
	c.until(t, "the whole burst", func() bool { return len(c.last) == n })
	if c.batches > 10 {
		t.Fatalf("%d files arrived in %d updates, want at most 10", n, c.batches)
	}
	first := map[string]ChangeOp{}
	for _, ch := range c.all {
		if _, ok := first[ch.Path]; !ok {
			first[ch.Path] = ch.Op
		}
	}
	for p, op := range first {
		if op != ChangeCreated || !strings.HasPrefix(p, "out/f") {
			t.Fatalf("%s: first reported as %s, want created", p, op)
		}
	}
	// Each file's create and write coalesce; only a file written across a batch
	// boundary may show up twice (created, then changed).
	if len(c.all) > n+c.batches-1 {
		t.Fatalf("%d changes for %d files in %d updates: duplicates were not coalesced", len(c.all), n, c.batches)
	}
}

func TestWatcherHonoursIgnoreRules(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".gitignore"), "# comment\n\n*.log\n!keep.log\n/build/\ntmp/\n")
	writeFile(t, filepath.Join(root, "src", ".gitignore"), "*.gen.go\n")
	for _, d := range []string{"build", "sub/build", "src/tmp", "node_modules/pkg", ".git/objects", "src/deep"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w := startWatch(t, root, WatchOptions{Ignore: []string{"*.swp"}})
	c := newCollector(w)
	for _, f := range []string{
		"a.log", "keep.log", "build/x.o", "sub/build/y.o", "node_modules/pkg/index.js", ".git/objects/ab",
		"src/tmp/z", "src/ok.go", "src/deep/x.gen.go", "src/deep/y.go", "notes.swp", "done.txt",
	} {
		writeFile(t, filepath.Join(root, f), "x")
	}
	c.until(t, "done.txt", c.sawOp("done.txt", ChangeCreated))
	var got []string
	for p := range c.last {
		got = append(got, p)
	}
	sort.Strings(got)
	want := "done.txt keep.log src/deep/y.go src/ok.go sub/build/y.o"
	if strings.Join(got, " ") != want {
		t.Fatalf("reported %v, want %s", got, want)
	}
}

func TestWatcherFollowsNewFoldersAndReportsEachOp(t *testing.T) {
	root := t.TempDir()
	w := startWatch(t, root, WatchOptions{})
	c := newCollector(w)

	// A folder tree created at once: the files inside may exist before its watch.
	if err := os.MkdirAll(filepath.Join(root, "a", "b", "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "a", "b", "c", "f.txt"), "1")
	c.until(t, "file in new folders", c.sawOp("a/b/c/f.txt", ChangeCreated))
	for _, d := range []string{"a", "a/b", "a/b/c"} {
		if c.last[d] != ChangeCreated {
			t.Fatalf("folder %s: %q", d, c.last[d])
		}
	}
	// The new deepest folder is watched: later writes in it are seen.
	writeFile(t, filepath.Join(root, "a", "b", "c", "f.txt"), "22")
	c.until(t, "change", c.sawOp("a/b/c/f.txt", ChangeChanged))
	if err := os.Rename(filepath.Join(root, "a", "b", "c", "f.txt"), filepath.Join(root, "a", "g.txt")); err != nil {
		t.Fatal(err)
	}
	c.until(t, "rename", func() bool { return c.last["a/b/c/f.txt"] == ChangeRenamed && c.last["a/g.txt"] == ChangeCreated })
	if err := os.Remove(filepath.Join(root, "a", "g.txt")); err != nil {
		t.Fatal(err)
	}
	c.until(t, "removal", c.sawOp("a/g.txt", ChangeRemoved))

	// A moved folder is reported under its new name from then on, not the old one.
	if err := os.Rename(filepath.Join(root, "a", "b"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	c.until(t, "folder move", c.sawOp("moved", ChangeCreated))
	writeFile(t, filepath.Join(root, "moved", "c", "h.txt"), "x")
	c.until(t, "file in moved folder", c.sawOp("moved/c/h.txt", ChangeCreated))
	if _, stale := c.last["a/b/c/h.txt"]; stale {
		t.Fatal("change reported under the folder's old name")
	}
}

func TestWatcherDegradesToRescansWhenWatchesRunOut(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b/c", "d/e/f"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(root, "d", "e", "f", "old.txt"), "old")
	w := startWatch(t, root, WatchOptions{MaxWatches: 2, RescanInterval: 20 * time.Millisecond})
	if !w.Degraded() {
		t.Fatal("not degraded with 6 folders and 2 watches")
	}
	select {
	case warn := <-w.Warnings():
		if warn.Kind != WarnWatchLimit || !strings.Contains(warn.Message, "max_user_watches") {
			t.Fatalf("warning %+v", warn)
		}
	default:
		t.Fatal("no warning about the watch limit")
	}
	c := newCollector(w)
	deep := filepath.Join(root, "d", "e", "f")
	writeFile(t, filepath.Join(deep, "new.txt"), "1")
	c.until(t, "rescan finds a new file", c.sawOp("d/e/f/new.txt", ChangeCreated))
	if _, seen := c.last["d/e/f/old.txt"]; seen {
		t.Fatal("a file that existed before the watch was reported")
	}
	writeFile(t, filepath.Join(deep, "new.txt"), "changed size")
	c.until(t, "rescan finds a change", c.sawOp("d/e/f/new.txt", ChangeChanged))
	if err := os.Remove(filepath.Join(deep, "new.txt")); err != nil {
		t.Fatal(err)
	}
	c.until(t, "rescan finds a removal", c.sawOp("d/e/f/new.txt", ChangeRemoved))
	// A folder created while out of watches is still covered.
	writeFile(t, filepath.Join(root, "later", "x.txt"), "1")
	c.until(t, "file in a folder created while degraded", c.sawOp("later/x.txt", ChangeCreated))
}

func TestWatcherClosesItsChannels(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	w, err := Watch(ctx, t.TempDir(), WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	for range w.Updates() {
	}
	for range w.Warnings() {
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Watch(context.Background(), filepath.Join(t.TempDir(), "missing"), WatchOptions{}); err == nil {
		t.Fatal("watching a missing folder succeeded")
	}
}

func TestMergeOps(t *testing.T) {
	cases := []struct {
		prev, next ChangeOp
		want       ChangeOp
		keep       bool
	}{
		{ChangeCreated, ChangeChanged, ChangeCreated, true},
		{ChangeCreated, ChangeRemoved, "", false},
		{ChangeCreated, ChangeRenamed, "", false},
		{ChangeChanged, ChangeRemoved, ChangeRemoved, true},
		{ChangeRemoved, ChangeCreated, ChangeChanged, true},
		{ChangeRenamed, ChangeCreated, ChangeChanged, true},
		{ChangeChanged, ChangeChanged, ChangeChanged, true},
	}
	for _, c := range cases {
		got, keep := mergeOps(c.prev, c.next)
		if got != c.want || keep != c.keep {
			t.Errorf("%s then %s = %s,%v want %s,%v", c.prev, c.next, got, keep, c.want, c.keep)
		}
	}
}

func TestWatcherMergesWhileTheReaderIsBehind(t *testing.T) {
	root := t.TempDir()
	w := startWatch(t, root, WatchOptions{Debounce: 5 * time.Millisecond})
	// Nobody reads while a file changes in ten separate bursts, each long enough
	// apart to end a batch: they must merge into one pending change, not queue up.
	for i := range 10 {
		writeFile(t, filepath.Join(root, "hot.txt"), strings.Repeat("x", i))
		time.Sleep(25 * time.Millisecond) // time must pass for batches to end
	}
	writeFile(t, filepath.Join(root, "last.txt"), "1")
	c := newCollector(w)
	c.until(t, "last.txt", c.sawOp("last.txt", ChangeCreated))
	hot := 0
	for _, ch := range c.all {
		if ch.Path == "hot.txt" {
			hot++
		}
	}
	if hot > 2 {
		t.Fatalf("hot.txt reported %d times while the reader was behind: %v", hot, c.all)
	}
}
