package checkpoint_test

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

// benchTree is the watcher benchmark's tree (backend/tools/watch_bench_test.go):
// a 20,000-file project (40 x 10 folders of 50 files) and a 50,000-file
// node_modules beside it, hard links to a few empty files. With distinct,
// the project's files are separate empty files instead: replacing a hard
// link changes the shared inode's ctime, which a full rescan (rightly)
// takes for a change of all 10,000 paths linked to it.
func benchTree(b *testing.B, distinct ...bool) string {
	b.Helper()
	root := b.TempDir()
	var src string
	links := 0
	touch := func(dir string, n int) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := range n {
			if len(distinct) > 0 && distinct[0] && !strings.Contains(dir, "node_modules") {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.js", i)), nil, 0o644); err != nil {
					b.Fatal(err)
				}
				continue
			}
			if links%10000 == 0 {
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

// statWalk is the baseline: a plain walk that stats every tracked file.
func statWalk(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return fs.SkipDir
		}
		_, err = d.Info()
		return err
	})
}

type benchEnv struct {
	b   *testing.B
	ctx context.Context
	db  *store.DB
	rec *checkpoint.Recorder
	sid string
	dir string
	n   int
}

func newBenchEnv(b *testing.B, dir string, opts ...checkpoint.Options) *benchEnv {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	s, err := db.CreateSession(ctx, store.NewSession{Title: "bench", Workspace: dir})
	if err != nil {
		b.Fatal(err)
	}
	e := &benchEnv{b: b, ctx: ctx, db: db, rec: checkpoint.New(db, append(opts, checkpoint.Options{})[0]), sid: s.ID, dir: dir}
	b.Cleanup(func() { e.rec.Close(); db.Close() })
	return e
}

// call runs fn as a checkpointed tool call and returns the time Before and
// After took together, and the result row.
func (e *benchEnv) call(fn func()) (time.Duration, int64) {
	e.n++
	id := fmt.Sprintf("c%d", e.n)
	if _, err := e.db.Append(e.ctx, e.sid, "r", store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{
		ToolCalls: []store.ToolCall{{ID: id, Name: "run_shell_command", Arguments: "{}"}}}}); err != nil {
		e.b.Fatal(err)
	}
	t0 := time.Now()
	c, err := e.rec.Before(e.ctx, e.sid, "r", id, e.dir)
	if err != nil {
		e.b.Fatal(err)
	}
	d := time.Since(t0)
	fn()
	rows, err := e.db.Append(e.ctx, e.sid, "r", store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: id, Name: "run_shell_command"}})
	if err != nil {
		e.b.Fatal(err)
	}
	t1 := time.Now()
	if _, err := c.After(e.ctx, rows[0].Seq); err != nil {
		e.b.Fatal(err)
	}
	return d + time.Since(t1), rows[0].Seq
}

// tenFiles is a shell command replacing 10 files of the project (rm first:
// the tree's files are hard links to one inode).
func tenFiles(dir string, n int) func() {
	var sb strings.Builder
	for i := range 10 {
		f := fmt.Sprintf("src%02d/mod%d/f%02d.js", n%40, i, n%50)
		fmt.Fprintf(&sb, "rm -f %s; echo 'export const v = %d_%d' > %s; ", f, n, i, f)
	}
	return func() {
		cmd := exec.Command("bash", "-c", sb.String())
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			panic(fmt.Sprintf("%v %s", err, out))
		}
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkCheckpointOverhead: the time Before + After add to a shell
// command that replaces 10 files of the 20,000-file tree, against a plain
// walk that stats the tracked files (x_vs_walk, goal <= 1.0). Medians of
// 10 pairs per iteration, alternating which side goes first. The first
// capture (the baseline: every tracked file read and stored once) is
// reported separately as baseline_ns.
func BenchmarkCheckpointOverhead(b *testing.B) { benchOverhead(b, checkpoint.Options{}) }

// BenchmarkCheckpointOverheadNoWatch: the same without inotify (the CLI, or
// a folder past the kernel's watch limit): every capture walks the folder.
func BenchmarkCheckpointOverheadNoWatch(b *testing.B) {
	benchOverhead(b, checkpoint.Options{NoWatch: true})
}

func benchOverhead(b *testing.B, opts checkpoint.Options) {
	const pairs = 10
	dir := benchTree(b, opts.NoWatch)
	e := newBenchEnv(b, dir, opts)
	if err := statWalk(dir); err != nil {
		b.Fatal(err)
	}
	base, _ := e.call(func() {})
	walk := func() time.Duration {
		t0 := time.Now()
		if err := statWalk(dir); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	var cp, wk, ratio []float64
	n := 0
	for b.Loop() {
		for i := range pairs {
			n++
			var tc, tw time.Duration
			if i%2 == 0 {
				tc, _ = e.call(tenFiles(dir, n))
				tw = walk()
			} else {
				tw = walk()
				tc, _ = e.call(tenFiles(dir, n))
			}
			cp, wk, ratio = append(cp, float64(tc)), append(wk, float64(tw)), append(ratio, float64(tc)/float64(tw))
		}
	}
	b.ReportMetric(float64(base), "baseline_ns")
	b.ReportMetric(median(cp), "checkpoint_ns/call")
	b.ReportMetric(median(wk), "walk_ns")
	b.ReportMetric(median(ratio), "x_vs_walk")
}

// BenchmarkRestore10: restoring the 10 files one call replaced, against
// writing the same 10 contents bare the way the restore does (temporary
// file, fsync, rename: x_vs_bare, goal <= 1.5) and with a plain
// os.WriteFile without fsync (x_vs_writefile).
func BenchmarkRestore10(b *testing.B) {
	const pairs = 5
	dir := benchTree(b)
	e := newBenchEnv(b, dir)
	e.call(func() {})
	bareDir := b.TempDir()
	bare := func(sync bool) time.Duration {
		t0 := time.Now()
		for i := range 10 {
			p := filepath.Join(bareDir, fmt.Sprintf("f%02d.js", i))
			data := []byte("")
			if !sync {
				if err := os.WriteFile(p, data, 0o644); err != nil {
					b.Fatal(err)
				}
				continue
			}
			f, err := os.CreateTemp(bareDir, ".tmp")
			if err != nil {
				b.Fatal(err)
			}
			f.Write(data)
			f.Sync()
			f.Close()
			os.Chmod(f.Name(), 0o644)
			if err := os.Rename(f.Name(), p); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0)
	}
	var rs, bs, ws, ratio, wratio []float64
	n := 1000
	for b.Loop() {
		for i := range pairs {
			n++
			_, seq := e.call(tenFiles(dir, n))
			restore := func() time.Duration {
				t0 := time.Now()
				p, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq})
				if err != nil || len(p.Restored) != 10 {
					b.Fatalf("restore: %d files, %v", len(p.Restored), err)
				}
				return time.Since(t0)
			}
			var tr, tb, tw time.Duration
			if i%2 == 0 {
				tr, tb, tw = restore(), bare(true), bare(false)
			} else {
				tw, tb, tr = bare(false), bare(true), restore()
			}
			rs, bs, ws = append(rs, float64(tr)), append(bs, float64(tb)), append(ws, float64(tw))
			ratio, wratio = append(ratio, float64(tr)/float64(tb)), append(wratio, float64(tr)/float64(tw))
		}
	}
	b.ReportMetric(median(rs), "restore_ns")
	b.ReportMetric(median(bs), "bare_ns")
	b.ReportMetric(median(ratio), "x_vs_bare")
	b.ReportMetric(median(wratio), "x_vs_writefile")
}

// BenchmarkStorage100Edits: the blob bytes 100 one-line edits of one
// 100 KB source file take (deduplicated, DEFLATE), against the 100 x 100 KB
// a copy per edit would take.
func BenchmarkStorage100Edits(b *testing.B) {
	dir := b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("func return if else for range err nil ctx value index buffer store write read path file change seq row session")
	var lines []string
	for size := 0; size < 100_000; {
		var l strings.Builder
		for range 8 {
			l.WriteString(words[rng.IntN(len(words))] + " ")
		}
		lines = append(lines, l.String())
		size += l.Len() + 1
	}
	file := filepath.Join(dir, "big.go")
	write := func() {
		if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write()
	var blobBytes, raw float64
	for b.Loop() {
		e := newBenchEnv(b, dir)
		e.call(func() {})
		for i := range 100 {
			e.call(func() {
				lines[rng.IntN(len(lines))] = fmt.Sprintf("edit %d", i)
				write()
			})
		}
		var z, n int64
		if err := e.db.SQL().QueryRow(`SELECT (SELECT sum(length(data)) FROM cp_chunks), (SELECT sum(size) FROM cp_blobs)`).Scan(&z, &n); err != nil {
			b.Fatal(err)
		}
		blobBytes, raw = float64(z), float64(n)
	}
	b.ReportMetric(blobBytes, "blob_bytes")
	b.ReportMetric(raw, "raw_bytes")
	b.ReportMetric(blobBytes/raw, "x_vs_raw")
}
