package checkpoint_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

// env is a database, a folder and a session working in it.
type env struct {
	t      *testing.T
	ctx    context.Context
	dbPath string
	dir    string
	db     *store.DB
	rec    *checkpoint.Recorder
	sid    string
	opts   checkpoint.Options
	n      int
}

func newEnv(t *testing.T, opts checkpoint.Options, files map[string]string) *env {
	t.Helper()
	e := &env{t: t, ctx: context.Background(), dbPath: filepath.Join(t.TempDir(), "loopdesk.db"), dir: t.TempDir(), opts: opts}
	writeTree(t, e.dir, files)
	e.open()
	s, err := e.db.CreateSession(e.ctx, store.NewSession{Title: "cp", Workspace: e.dir})
	if err != nil {
		t.Fatal(err)
	}
	e.sid = s.ID
	t.Cleanup(e.close)
	return e
}

func (e *env) open() {
	e.t.Helper()
	db, err := store.OpenWith(e.ctx, e.dbPath, store.Options{BusyTimeout: 2 * time.Second})
	if err != nil {
		e.t.Fatal(err)
	}
	e.db, e.rec = db, checkpoint.New(db, e.opts)
}

func (e *env) close() {
	if e.db != nil {
		e.rec.Close()
		e.db.Close()
		e.db = nil
	}
}

// reopen is a restart: a new Recorder and database handle.
func (e *env) reopen() {
	e.close()
	e.open()
	if _, err := e.rec.Recover(e.ctx); err != nil {
		e.t.Fatal(err)
	}
}

// call runs fn as tool call with checkpoints around it, the way the
// runner does, and returns the result row's seq and the changes.
func (e *env) call(fn func()) (int64, []checkpoint.Change) {
	e.t.Helper()
	return e.callIn(e.sid, fn)
}

func (e *env) callIn(sid string, fn func()) (int64, []checkpoint.Change) {
	e.t.Helper()
	e.n++
	id := fmt.Sprintf("call_%d", e.n)
	if _, err := e.db.Append(e.ctx, sid, "run", store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{
		ToolCalls: []store.ToolCall{{ID: id, Name: "run_shell_command", Arguments: "{}"}}}}); err != nil {
		e.t.Fatal(err)
	}
	c, err := e.rec.Before(e.ctx, sid, "run", id, e.dir)
	if err != nil {
		e.t.Fatal(err)
	}
	fn()
	rows, err := e.db.Append(e.ctx, sid, "run", store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: id, Name: "run_shell_command", Content: "ok"}})
	if err != nil {
		e.t.Fatal(err)
	}
	ch, err := c.After(e.ctx, rows[0].Seq)
	if err != nil {
		e.t.Fatal(err)
	}
	return rows[0].Seq, ch
}

func (e *env) sh(script string) func() {
	return func() {
		e.t.Helper()
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir = e.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			e.t.Fatalf("bash -c %q: %v\n%s", script, err, out)
		}
	}
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot describes every path below dir: kind, mode and content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			tgt, _ := os.Readlink(p)
			out[rel] = "link->" + tgt
		case fi.IsDir():
			out[rel] = fmt.Sprintf("dir %v", fi.Mode().Perm())
		default:
			b, _ := os.ReadFile(p)
			out[rel] = fmt.Sprintf("file %v %q", fi.Mode().Perm(), b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, want, got map[string]string) {
	t.Helper()
	var diffs []string
	for p, w := range want {
		if got[p] != w {
			diffs = append(diffs, fmt.Sprintf("%s: want %s, got %s", p, w, got[p]))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: unexpected %s", p, g))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Fatalf("folder differs:\n%s", strings.Join(diffs, "\n"))
	}
}

func summary(cs []checkpoint.Change) string {
	var b bytes.Buffer
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %s\n", c.Change, c.Path)
	}
	return b.String()
}
