package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// runEnv is one `loopdesk run` setup: a fake model server, a database and a workspace.
type runEnv struct {
	t   *testing.T
	srv *fakeai.Server
	db  string
	ws  string
}

func runNewEnv(t *testing.T) *runEnv {
	t.Helper()
	srv, err := fakeai.Start(fakeai.WithAPIKey("sk-test-secret"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "sk-test-secret")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("LOOPDESK_MODEL", "")
	t.Setenv("LOOPDESK_DB", "")
	return &runEnv{t: t, srv: srv, db: filepath.Join(dir, "loopdesk.db"), ws: ws}
}

// notifyBuffer is a goroutine-safe buffer that reports when a substring appears.
type notifyBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	wake chan struct{}
}

func (b *notifyBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.wake != nil {
		select {
		case b.wake <- struct{}{}:
		default:
		}
	}
	return b.buf.Write(p)
}

func (b *notifyBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *notifyBuffer) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for !strings.Contains(b.String(), s) {
		select {
		case <-b.wake:
		case <-deadline:
			t.Fatalf("output never contained %q:\n%s", s, b.String())
		}
	}
}

type runOut struct {
	code           int
	stdout, stderr string
}

func (e *runEnv) run(ctx context.Context, stdin string, args ...string) runOut {
	e.t.Helper()
	full := append([]string{"--db", e.db, "--workspace", e.ws, "--base-url", e.srv.URL(), "--model", "fake-model"}, args...)
	var out, errb notifyBuffer
	code := Run(ctx, full, strings.NewReader(stdin), &out, &errb)
	return runOut{code, out.String(), errb.String()}
}

func runLines(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not one JSON object per line: %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func TestRunJSONCompleted(t *testing.T) {
	e := runNewEnv(t)
	if err := os.WriteFile(filepath.Join(e.ws, "notes.txt"), []byte("buy milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "call_1", Name: "read_file", Arguments: `{"path":"notes.txt"}`}),
		fakeai.Text("You need to buy milk."),
	)
	r := e.run(context.Background(), "", "--json", "--approve", "read-only", "what do my notes say?")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	lines := runLines(t, r.stdout)
	var call, finished map[string]any
	for _, l := range lines {
		for _, k := range []string{"type", "session_id", "run_id", "seq"} {
			if _, ok := l[k]; !ok {
				t.Errorf("line without %q: %v", k, l)
			}
		}
		switch l["type"] {
		case "tool_call":
			call = l
		case "run_finished":
			finished = l
		}
	}
	if call == nil || call["id"] != "call_1" || call["name"] != "read_file" {
		t.Fatalf("tool_call line = %v", call)
	}
	if args, ok := call["arguments"].(map[string]any); !ok || args["path"] != "notes.txt" {
		t.Errorf("tool_call arguments = %#v, want the parsed object", call["arguments"])
	}
	if lines[len(lines)-1]["type"] != "run_finished" {
		t.Errorf("last line is %v", lines[len(lines)-1]["type"])
	}
	for _, k := range []string{"status", "output", "turns", "tool_calls", "input_tokens", "output_tokens", "cost_usd", "started_at", "ended_at", "error", "session_id", "run_id"} {
		if _, ok := finished[k]; !ok {
			t.Errorf("run_finished lacks %q", k)
		}
	}
	if finished["status"] != "completed" || finished["output"] != "You need to buy milk." {
		t.Errorf("run_finished = %v", finished)
	}
	if strings.Contains(r.stdout+r.stderr, "sk-test-secret") {
		t.Error("the API key was printed")
	}
	// The key never reaches the database file either.
	raw, _ := os.ReadFile(e.db)
	if bytes.Contains(raw, []byte("sk-test-secret")) {
		t.Error("the API key is in the database")
	}
}

func TestRunExitCodes(t *testing.T) {
	loopCall := fakeai.Call{Name: "list_dir", Arguments: `{}`}
	tests := []struct {
		name    string
		replies []fakeai.Reply
		args    []string
		want    int
	}{
		{"completed", []fakeai.Reply{fakeai.Text("hi")}, []string{"hello"}, 0},
		{"max turns is a bound", []fakeai.Reply{fakeai.ToolCalls(loopCall), fakeai.ToolCalls(loopCall)}, []string{"--approve", "auto", "--max-turns", "1", "go"}, 3},
		{"loop detected is a bound", []fakeai.Reply{fakeai.ToolCalls(loopCall), fakeai.ToolCalls(loopCall), fakeai.ToolCalls(loopCall), fakeai.ToolCalls(loopCall)}, []string{"--approve", "auto", "go"}, 3},
		{"truncated", []fakeai.Reply{fakeai.Text("long story").WithFinish("length")}, []string{"tell"}, 5},
		{"refused", []fakeai.Reply{fakeai.Text("").WithFinish("content_filter")}, []string{"tell"}, 5},
		{"provider error", []fakeai.Reply{fakeai.HTTPError(400, "")}, []string{"tell"}, 5},
		{"no prompt", nil, nil, 2},
		{"bad approve mode", nil, []string{"--approve", "sometimes", "hi"}, 2},
		{"unknown flag", nil, []string{"--frobnicate", "hi"}, 2},
		{"unknown session", nil, []string{"--session", "nope", "hi"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := runNewEnv(t)
			e.srv.Enqueue(tt.replies...)
			r := e.run(context.Background(), "", tt.args...)
			if r.code != tt.want {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.want, r.stdout, r.stderr)
			}
		})
	}
	t.Run("database is not SQLite", func(t *testing.T) {
		e := runNewEnv(t)
		if err := os.WriteFile(e.db, []byte("this is not a database, just text that is long enough to be read as a header"), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := e.run(context.Background(), "", "hi"); r.code != 1 || !strings.Contains(r.stderr, "loopdesk run:") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
	t.Run("no model", func(t *testing.T) {
		e := runNewEnv(t)
		var out, errb bytes.Buffer
		if code := Run(context.Background(), []string{"--db", e.db, "hi"}, strings.NewReader(""), &out, &errb); code != 1 || !strings.Contains(errb.String(), "model") {
			t.Errorf("exit %d, stderr %q", code, errb.String())
		}
	})
}

func TestRunAskWithoutTerminalDenies(t *testing.T) {
	e := runNewEnv(t)
	e.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{Name: "write_file", Arguments: `{"path":"x.txt","content":"x"}`}),
		fakeai.Text("I was not allowed."),
	)
	r := e.run(context.Background(), "y\n", "write x") // stdin is not a terminal: "y" is never read
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x.txt")); err == nil {
		t.Error("ask without a terminal let the write happen")
	}
	if !strings.Contains(r.stdout, "denied") || !strings.Contains(r.stdout, "I was not allowed.") {
		t.Errorf("transcript:\n%s", r.stdout)
	}
}

// stdin from /dev/null (a character device, not a terminal): no prompt is printed, the call
// is denied, and the journal says no terminal decided it, never a person.
func TestRunAskWithDevNullStdinRecordsNoTerminal(t *testing.T) {
	e := runNewEnv(t)
	e.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{Name: "write_file", Arguments: `{"path":"x.txt","content":"x"}`}),
		fakeai.Text("I was not allowed."),
	)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var out, errb notifyBuffer
	code := Run(context.Background(), []string{"--db", e.db, "--workspace", e.ws, "--base-url", e.srv.URL(), "--model", "fake-model",
		"--approve", "ask", "--json", "write x"}, null, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.Contains(errb.String(), "? allow") {
		t.Errorf("a prompt was printed with nobody to answer it: %q", errb.String())
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x.txt")); err == nil {
		t.Error("the write happened")
	}
	var by string
	for _, l := range runLines(t, out.String()) {
		if l["type"] == "approval_decided" {
			by, _ = l["by"].(string)
		}
	}
	if by != ByNoTerminal {
		t.Fatalf("decided by %q, want %q:\n%s", by, ByNoTerminal, out.String())
	}
}

func TestRunTerminalPrompt(t *testing.T) {
	old := runIsTerminal
	runIsTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { runIsTerminal = old })

	t.Run("deny with a reason", func(t *testing.T) {
		e := runNewEnv(t)
		e.srv.Enqueue(
			fakeai.ToolCalls(fakeai.Call{ID: "w", Name: "write_file", Arguments: `{"path":"x.txt","content":"x"}`}),
			fakeai.Text("ok, I will not"),
		)
		r := e.run(context.Background(), "maybe\nr\nnot on a Friday\n", "write x")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "please answer") {
			t.Errorf("an unknown answer was not asked again: %s", r.stderr)
		}
		reqs := e.srv.Requests()
		if !strings.Contains(string(reqs[len(reqs)-1].Body), "not on a Friday") {
			t.Error("the reason did not reach the model")
		}
	})
	t.Run("always allow", func(t *testing.T) {
		e := runNewEnv(t)
		e.srv.Enqueue(
			fakeai.ToolCalls(fakeai.Call{Name: "write_file", Arguments: `{"path":"a.txt","content":"a"}`}),
			fakeai.ToolCalls(fakeai.Call{Name: "write_file", Arguments: `{"path":"b.txt","content":"b"}`}),
			fakeai.Text("both written"),
		)
		r := e.run(context.Background(), "a\n", "write two files") // one answer for two calls
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		for _, f := range []string{"a.txt", "b.txt"} {
			if _, err := os.Stat(filepath.Join(e.ws, f)); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
		if n := strings.Count(r.stderr, "? allow"); n != 1 {
			t.Errorf("asked %d times, want once", n)
		}
	})
}

func TestRunCancelExits4(t *testing.T) {
	e := runNewEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{Name: "run_shell_command", Arguments: `{"command":"sleep 30"}`}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &notifyBuffer{wake: make(chan struct{}, 1)}
	var errb bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- Run(ctx, []string{"--db", e.db, "--workspace", e.ws, "--base-url", e.srv.URL(), "--model", "fake-model",
			"--json", "--approve", "auto", "wait"}, strings.NewReader(""), out, &errb)
	}()
	out.waitFor(t, `"type":"tool_started"`)
	cancel() // what the first Ctrl-C does
	if c := <-code; c != 4 {
		t.Fatalf("exit %d, want 4\n%s", c, errb.String())
	}
	if !strings.Contains(out.String(), `"status":"cancelled"`) {
		t.Errorf("no cancelled run_finished:\n%s", out.String())
	}
	// The session is left valid: the shell call has its cancelled result.
	db, err := store.Open(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ss, _ := db.ListSessions(context.Background())
	rows, err := db.Chunks(context.Background(), ss[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	answered := map[string]bool{}
	for _, r := range rows {
		if r.Kind == store.KindToolResult {
			var p store.ToolResultPayload
			_ = json.Unmarshal(r.Payload, &p)
			answered[p.CallID] = true
		}
	}
	for _, r := range rows {
		if r.Kind == store.KindAssistant {
			var p store.AssistantPayload
			_ = json.Unmarshal(r.Payload, &p)
			for _, c := range p.ToolCalls {
				if !answered[c.ID] {
					t.Errorf("call %s has no result after cancel", c.ID)
				}
			}
		}
	}
}
