package stack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// The whole stack as the window and the CLI build it: a real SQLite file, the scripted model
// server on loopback, real shell commands, real MCP servers.

type env struct {
	t   *testing.T
	srv *fakeai.Server
	db  *store.DB
	st  *stack.Stack
	ws  string

	mu        sync.Mutex
	events    []bus.Event
	stop      func()
	closeOnce sync.Once
}

func newEnv(t *testing.T, dbPath string, configure func(db *store.DB) stack.Config) *env {
	t.Helper()
	srv, err := fakeai.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg := configure(db)
	cfg.DB = db
	cfg.Model = provider.New(provider.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", MaxRetries: -1,
		RequestTimeout: 20 * time.Second, IdleTimeout: 20 * time.Second})
	st, err := stack.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, srv: srv, db: db, st: st}
	ctx, cancel := context.WithCancel(context.Background())
	done := st.Runner.Bus().Subscribe(ctx, "", func(ev bus.Event) {
		e.mu.Lock()
		e.events = append(e.events, ev)
		e.mu.Unlock()
	})
	t.Cleanup(e.close)
	e.stop = func() { cancel(); <-done }
	return e
}

// close stops the stack and closes the database, as quitting the app does (once).
func (e *env) close() {
	e.closeOnce.Do(func() {
		e.st.Close()
		if e.st.Checkpoints != nil {
			e.st.Checkpoints.Close()
		}
		e.stop()
		e.db.Close()
	})
}

// run runs prompt in a new session on folder ws, approving everything, and returns the session.
func (e *env) run(ws, prompt string) (string, core.Result) {
	e.t.Helper()
	ctx := context.Background()
	s, err := e.db.CreateSession(ctx, store.NewSession{Title: "t", Workspace: ws, Model: "m"})
	if err != nil {
		e.t.Fatal(err)
	}
	id, err := e.st.Runner.Start(ctx, loop.RunSpec{SessionID: s.ID, Prompt: prompt, Model: "m", Mode: tools.ModeAuto})
	if err != nil {
		e.t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	res, err := e.st.Runner.Wait(wctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return s.ID, res
}

func (e *env) result(sessionID, callID string) (store.Chunk, store.ToolResultPayload) {
	e.t.Helper()
	rows, err := e.db.Chunks(context.Background(), sessionID)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, r := range rows {
		var p store.ToolResultPayload
		if r.Kind == store.KindToolResult && json.Unmarshal(r.Payload, &p) == nil && p.CallID == callID {
			return r, p
		}
	}
	e.t.Fatalf("no result row for call %s", callID)
	return store.Chunk{}, store.ToolResultPayload{}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A shell command's changes (sed -i, rm, a new file) are recorded on its result row, published
// as files_changed, and restored byte for byte after the app restarts.
func TestShellChangesAreRecordedAndRestoredAfterARestart(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "loopdesk.db")
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "notes.txt"), "alpha\nbeta\n")
	write(t, filepath.Join(ws, "old.txt"), "keep me\n")
	withCheckpoints := func(db *store.DB) stack.Config {
		return stack.Config{Checkpoints: &checkpoint.Options{}}
	}
	e := newEnv(t, dbPath, withCheckpoints)
	cmd := `sed -i s/alpha/ALPHA/ notes.txt && rm old.txt && printf 'fresh\n' > new.txt`
	args, _ := json.Marshal(map[string]string{"command": cmd})
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "sh1", Name: "run_shell_command", Arguments: string(args)}), fakeai.Text("done"))
	sid, res := e.run(ws, "change the files")
	if res.Status != core.StopCompleted {
		t.Fatalf("run: %+v", res)
	}
	row, _ := e.result(sid, "sh1")

	// The changes are on the result row, and were published with it.
	want := map[string]string{"notes.txt": "modified", "old.txt": "deleted", "new.txt": "created"}
	e.mu.Lock()
	var published *checkpoint.FilesChangedPayload
	for _, ev := range e.events {
		if p, ok := ev.Payload.(checkpoint.FilesChangedPayload); ok && p.CallID == "sh1" {
			published = &p
		}
	}
	e.mu.Unlock()
	if published == nil || published.RowSeq != row.Seq || len(published.Changes) != len(want) {
		t.Fatalf("files_changed = %+v, want 3 changes on row %d", published, row.Seq)
	}
	for _, c := range published.Changes {
		if want[c.Path] != string(c.Change) {
			t.Errorf("%s: %s, want %s", c.Path, c.Change, want[c.Path])
		}
	}
	e.close()

	// After a restart: the same database, a new recorder, the folder put back.
	e2 := newEnv(t, dbPath, withCheckpoints)
	ctx := context.Background()
	changes, err := e2.st.Checkpoints.Changes(ctx, sid)
	if err != nil || len(changes) != 3 {
		t.Fatalf("changes after restart: %+v %v", changes, err)
	}
	plan, err := e2.st.Checkpoints.Restore(ctx, sid, checkpoint.RestoreOptions{ToSeq: row.Seq})
	if err != nil || len(plan.Restored) != 3 {
		t.Fatalf("restore: %+v %v", plan, err)
	}
	if got := read(t, filepath.Join(ws, "notes.txt")); got != "alpha\nbeta\n" {
		t.Errorf("notes.txt = %q", got)
	}
	if got := read(t, filepath.Join(ws, "old.txt")); got != "keep me\n" {
		t.Errorf("old.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt still there: %v", err)
	}

	// Continued, the model hears of the restore: once, framed as Loopdesk's note, naming the
	// paths and the row, before the person's next message; and still once a turn later.
	for i, prompt := range []string{"go on", "and again"} {
		e2.srv.Enqueue(fakeai.Text("noted"))
		if res := e2.cont(sid, prompt); res.Status != core.StopCompleted {
			t.Fatalf("continue: %+v", res)
		}
		reqs := e2.srv.Requests()
		body := string(reqs[len(reqs)-1].Body)
		if n := strings.Count(body, "The person restored"); n != 1 {
			t.Fatalf("request %d carries the restore note %d times:\n%s", i+1, n, body)
		}
		note := body[strings.Index(body, "The person restored"):]
		for _, p := range []string{"notes.txt", "old.txt", "new.txt", fmt.Sprintf("before row %d", row.Seq)} {
			if !strings.Contains(note[:strings.Index(note, `"}`)], p) {
				t.Fatalf("the restore note does not name %s: %s", p, note)
			}
		}
		if !strings.Contains(body, jsonString(store.NotePrefix)) || strings.Index(body, "The person restored") > strings.Index(body, `"go on"`) {
			t.Fatalf("the note is not framed as Loopdesk's, or comes after the person's message:\n%s", body)
		}
	}
}

// cont continues session sid with prompt and waits for the run.
func (e *env) cont(sid, prompt string) core.Result {
	e.t.Helper()
	ctx := context.Background()
	id, err := e.st.Runner.Start(ctx, loop.RunSpec{SessionID: sid, Prompt: prompt, Model: "m", Mode: tools.ModeAuto})
	if err != nil {
		e.t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	res, err := e.st.Runner.Wait(wctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// everything is the real npm server-everything, or a skip when it is not installed (make
// test installs it and sets LOOPDESK_REQUIRE_MCP_NPM=1, which turns the skip into a failure).
func everything(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs("../mcp/testdata/npm/node_modules/.bin/mcp-server-everything")
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if os.Getenv("LOOPDESK_REQUIRE_MCP_NPM") == "1" {
			t.Fatalf("server-everything is not installed: %v", err)
		}
		t.Skipf("server-everything is not installed (npm ci in backend/mcp/testdata/npm): %v", err)
	}
	return bin
}

// An MCP tool goes through the same pipeline as a built-in one: offered to the model under
// its mcp__ name, validated, run, its reply stored as the result row and sent back next turn.
func TestMCPToolRunsThroughTheRunner(t *testing.T) {
	bin := everything(t)
	dir := t.TempDir()
	servers := mcp.Config{Servers: map[string]mcp.ServerConfig{"everything": {Command: bin}}}
	e := newEnv(t, filepath.Join(dir, "loopdesk.db"), func(*store.DB) stack.Config { return stack.Config{MCP: &servers} })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.st.MCP.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "m1", Name: "mcp__everything__echo", Arguments: `{"message":"hello over MCP"}`}),
		fakeai.Text("the server said hello"))
	sid, res := e.run(dir, "echo something")
	if res.Status != core.StopCompleted {
		t.Fatalf("run: %+v", res)
	}
	_, p := e.result(sid, "m1")
	if p.IsError || !strings.Contains(p.Content, "Echo: hello over MCP") {
		t.Fatalf("result = %+v", p)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Body), `"mcp__everything__echo"`) {
		t.Error("the first request did not offer mcp__everything__echo")
	}
	if !strings.Contains(string(reqs[1].Body), "Echo: hello over MCP") {
		t.Error("the second request does not carry the server's reply")
	}
}

// A run started while the configured servers are still starting waits for them: its first
// request already offers the real server's tools, and its first event names the server that
// failed, so a run never lacks a configured server's tools without saying so.
func TestRunStartedWhileMCPServersStartWaitsForThem(t *testing.T) {
	bin := everything(t)
	dir := t.TempDir()
	servers := mcp.Config{Servers: map[string]mcp.ServerConfig{
		"everything": {Command: bin},
		"broken":     {Command: "sh", Args: []string{"-c", "echo no such thing >&2; exit 3"}},
	}}
	e := newEnv(t, filepath.Join(dir, "loopdesk.db"), func(*store.DB) stack.Config { return stack.Config{MCP: &servers} })
	e.srv.Enqueue(fakeai.Text("ready"))
	_, res := e.run(dir, "what can you use?") // no WaitSettled: the run itself waits
	if res.Status != core.StopCompleted {
		t.Fatalf("run: %+v", res)
	}
	if reqs := e.srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `"mcp__everything__echo"`) {
		t.Fatal("the first request did not offer the tools of the server that was still starting")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.events {
		if p, ok := ev.Payload.(core.RunStartedPayload); ok {
			if len(p.MCPFailed) != 1 || !strings.HasPrefix(p.MCPFailed[0], "broken: ") {
				t.Fatalf("run_started mcp_failed = %q, want the broken server named", p.MCPFailed)
			}
			return
		}
	}
	t.Fatal("no run_started")
}
