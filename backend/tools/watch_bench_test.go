package tools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// benchTree creates, once per benchmark, a 20,000-file project (40 folders of 10
// subfolders of 50 files) with a 50,000-file node_modules beside it (1,000
// packages of 50 files). Files are hard links to a few empty files: creating a
// file costs about 0.4 ms on the build machines' disks and a link 8 µs, and a
// directory walk or an inotify watch cannot tell the difference.
func benchTree(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	var src string
	links := 0
	touch := func(dir string, n int) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := range n {
			if links%10000 == 0 { // stay far below ext4's 65,000 links per inode
				src = filepath.Join(root, fmt.Sprintf(".src%d", links))
				if err := os.WriteFile(src, nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			links++
			if err := os.Link(src, filepath.Join(dir, fmt.Sprintf("f%02d.js", i))); err != nil {
				b.Fatal(err)
			}
		}
	}
	for i := range 40 {
		for j := range 10 {
			touch(filepath.Join(root, fmt.Sprintf("src%02d", i), fmt.Sprintf("mod%d", j)), 50)
		}
	}
	for i := range 1000 {
		touch(filepath.Join(root, "node_modules", fmt.Sprintf("pkg%03d", i), "lib"), 50)
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n/dist/\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}

func walkTree(root string, skip string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == skip {
			return fs.SkipDir
		}
		return nil
	})
}

// BenchmarkWatcherReady: time until Watch returns with every folder watched,
// against a plain filepath.WalkDir of the same folder (x_vs_bare), and against a
// walk that already skips node_modules (x_vs_project_walk, the stricter figure).
// Each iteration measures readyPairs pairs, alternating which side goes first, and
// reports medians, so one load spike from other processes does not decide a
// `-benchtime=1x` run.
func BenchmarkWatcherReady(b *testing.B) {
	const readyPairs = 5
	root := benchTree(b)
	if err := walkTree(root, ""); err != nil { // warm the dentry cache for everyone
		b.Fatal(err)
	}
	watch := func() time.Duration {
		t0 := time.Now()
		w, err := Watch(context.Background(), root, WatchOptions{})
		if err != nil {
			b.Fatal(err)
		}
		d := time.Since(t0)
		_ = w.Close()
		return d
	}
	walk := func(skip string) time.Duration {
		t0 := time.Now()
		if err := walkTree(root, skip); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	var watchT, walkT, vsWalk, vsProject []float64
	for b.Loop() {
		for i := range readyPairs {
			var tw, ta, tp time.Duration
			if i%2 == 0 {
				tw, ta, tp = watch(), walk(""), walk("node_modules")
			} else {
				tp, ta, tw = walk("node_modules"), walk(""), watch()
			}
			watchT = append(watchT, float64(tw))
			walkT = append(walkT, float64(ta))
			vsWalk = append(vsWalk, float64(tw)/float64(ta))
			vsProject = append(vsProject, float64(tw)/float64(tp))
		}
	}
	b.ReportMetric(median(watchT), "watch_ns/op")
	b.ReportMetric(median(walkT), "walk_ns/op")
	b.ReportMetric(median(vsWalk), "x_vs_bare")
	b.ReportMetric(median(vsProject), "x_vs_project_walk")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkWatcherBurst: how many updates a burst of 1,000 new files produces,
// against the raw fsnotify events a bare watcher on the same folder receives.
func BenchmarkWatcherBurst(b *testing.B) {
	root := b.TempDir()
	w, err := Watch(context.Background(), root, WatchOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	var updates, raw int
	n := 0
	for b.Loop() {
		b.StopTimer()
		dir := filepath.Join(root, fmt.Sprintf("burst%d", n))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		waitFor(b, w, func(c Change) bool { return c.Path == filepath.Base(dir) })
		bare, err := fsnotify.NewBufferedWatcher(4096)
		if err != nil {
			b.Fatal(err)
		}
		if err := bare.Add(dir); err != nil {
			b.Fatal(err)
		}
		rawDone := make(chan int)
		go func() {
			events, creates := 0, map[string]bool{}
			for len(creates) < 1000 {
				ev := <-bare.Events
				events++
				if ev.Has(fsnotify.Create) {
					creates[ev.Name] = true
				}
			}
			rawDone <- events
		}()
		b.StartTimer()
		for i := range 1000 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.txt", i)), []byte("x"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		seen := map[string]bool{}
		batches := 0
		for len(seen) < 1000 {
			batch := <-w.Updates()
			batches++
			for _, c := range batch {
				seen[c.Path] = true
			}
		}
		b.StopTimer()
		events := <-rawDone
		bare.Close()
		updates += batches
		raw += events
		n++
		b.StartTimer()
	}
	b.ReportMetric(float64(updates)/float64(n), "updates/burst")
	b.ReportMetric(float64(raw)/float64(n), "raw_events/burst")
	b.ReportMetric(float64(updates)/float64(raw), "x_vs_bare")
}

func waitFor(b *testing.B, w *Watcher, match func(Change) bool) {
	timeout := time.After(10 * time.Second)
	for {
		select {
		case batch := <-w.Updates():
			for _, c := range batch {
				if match(c) {
					return
				}
			}
		case <-timeout:
			b.Fatal("watcher did not report the burst folder")
		}
	}
}
