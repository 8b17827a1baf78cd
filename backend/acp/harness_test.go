package acp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// loopdeskBin is the real binary built from this tree by TestMain (or $LOOPDESK_ACP_BIN).
var loopdeskBin string

// buildFlags are added to its go build (race_test.go adds -race).
var buildFlags []string

func TestMain(m *testing.M) {
	if os.Getenv("LOOPDESK_ACP_MCP_SERVER") == "1" {
		serveEchoMCP() // this binary is a client's MCP server (modes_test.go)
		return
	}
	code, err := buildAndRun(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}

func buildAndRun(m *testing.M) (int, error) {
	if loopdeskBin = os.Getenv("LOOPDESK_ACP_BIN"); loopdeskBin != "" {
		return m.Run(), nil
	}
	dir, err := os.MkdirTemp("", "acp-bin-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	loopdeskBin = filepath.Join(dir, "loopdesk")
	args := append([]string{"build", "-tags", "desktop,production,webkit2_41,sqlite_fts5"}, buildFlags...)
	build := exec.Command("go", append(args, "-o", loopdeskBin, "./cmd/loopdesk")...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("build loopdesk: %v\n%s", err, out)
	}
	return m.Run(), nil
}

// env is one setup: a scripted fake model, a database, a workspace, private XDG folders.
type env struct {
	t   testing.TB
	srv *fakeai.Server
	dir string
	db  string
	ws  string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	srv, err := fakeai.Start(fakeai.WithAPIKey("sk-acp-secret"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, srv: srv, dir: dir, db: filepath.Join(dir, "loopdesk.db"), ws: ws}
}

// environ is the processes' environment: the key in the one variable Loopdesk reads it from,
// configuration and data kept inside the test's folder.
func (e *env) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "OPENAI_API_KEY", "OPENAI_BASE_URL", "LOOPDESK_MODEL", "LOOPDESK_DB", "XDG_CONFIG_HOME", "XDG_DATA_HOME":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "OPENAI_API_KEY=sk-acp-secret", "XDG_CONFIG_HOME="+filepath.Join(e.dir, "config"),
		"XDG_DATA_HOME="+filepath.Join(e.dir, "data"), "LOOPDESK_DB="+e.db)
}

// flags are the agent's and the CLI's common flags.
func (e *env) flags(extra ...string) []string {
	return append([]string{"--db", e.db, "--base-url", e.srv.URL(), "--model", "fake-model", "--sandbox", "off"}, extra...)
}

// runCLI runs `loopdesk run` to the end and returns its stdout.
func (e *env) runCLI(args ...string) (string, int) {
	e.t.Helper()
	cmd := exec.Command(loopdeskBin, append([]string{"run"}, args...)...)
	cmd.Env = e.environ()
	cmd.Dir = e.ws
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("loopdesk run: %v", err)
	}
	if code != 0 {
		e.t.Logf("loopdesk run exited %d: %s", code, errb.String())
	}
	return out.String(), code
}

func (e *env) openDB() *store.DB {
	e.t.Helper()
	db, err := store.Open(context.Background(), e.db)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { db.Close() })
	return db
}

// plan is what client.mjs does (see its header).
type plan struct {
	Log     string   `json:"log"`
	Answers []string `json:"answers,omitempty"`
	Steps   []step   `json:"steps"`
}

type step map[string]any

// pair is `loopdesk acp` and the npm client talking over two pipes this test owns, so it can
// kill either side and wait for the other.
type pair struct {
	t                     testing.TB
	agent                 *exec.Cmd
	client                *exec.Cmd
	log                   string
	stderr                *syncBuffer
	agentDone, clientDone chan error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func clientScript(t testing.TB) string {
	t.Helper()
	dir, _ := filepath.Abs("testdata")
	if _, err := os.Stat(filepath.Join(dir, "npm", "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		if os.Getenv("LOOPDESK_REQUIRE_ACP_NPM") == "1" {
			t.Fatalf("the npm ACP client is missing (make .stamps/npm-acp): %v", err)
		}
		t.Skip("the npm ACP client is not installed; run make .stamps/npm-acp")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	return filepath.Join(dir, "client.mjs")
}

func (e *env) start(p plan, acpArgs ...string) *pair {
	t := e.t
	t.Helper()
	script := clientScript(t)
	p.Log = filepath.Join(t.TempDir(), "client.jsonl")
	planFile := filepath.Join(t.TempDir(), "plan.json")
	b, _ := json.Marshal(p)
	if err := os.WriteFile(planFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	toAgent, fromClient, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	toClient, fromAgent, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr := &pair{t: t, log: p.Log, stderr: &syncBuffer{}, agentDone: make(chan error, 1), clientDone: make(chan error, 1)}
	pr.agent = exec.Command(loopdeskBin, append([]string{"acp"}, e.flags(acpArgs...)...)...)
	pr.agent.Env, pr.agent.Dir = e.environ(), e.ws
	pr.agent.Stdin, pr.agent.Stdout, pr.agent.Stderr = toAgent, fromAgent, pr.stderr
	pr.client = exec.Command("node", script, planFile)
	pr.client.Stdin, pr.client.Stdout, pr.client.Stderr = toClient, fromClient, pr.stderr
	if err := pr.agent.Start(); err != nil {
		t.Fatal(err)
	}
	if err := pr.client.Start(); err != nil {
		t.Fatal(err)
	}
	// Only the two processes hold the pipes now: either one's death is the other's EOF.
	for _, f := range []*os.File{toAgent, fromClient, toClient, fromAgent} {
		f.Close()
	}
	go func() { pr.agentDone <- pr.agent.Wait() }()
	go func() { pr.clientDone <- pr.client.Wait() }()
	t.Cleanup(func() {
		_ = pr.client.Process.Kill()
		_ = pr.agent.Process.Kill()
		<-pr.agentDone
		<-pr.clientDone
		if t.Failed() {
			t.Logf("stderr of agent and client:\n%s", pr.stderr.String())
		}
	})
	return pr
}

// event is one line of the client's log.
type event struct {
	Ev        string          `json:"ev"`
	MS        float64         `json:"ms"`
	Op        string          `json:"op"`
	Text      string          `json:"text"` // of an async prompt's outcome
	Result    json.RawMessage `json:"result"`
	Code      int             `json:"code"`
	Message   string          `json:"message"`
	Data      json.RawMessage `json:"data"`
	SessionID string          `json:"sessionId"`
	Update    update          `json:"update"`
	ToolCall  update          `json:"toolCall"`
	Options   []struct {
		OptionID string `json:"optionId"`
		Kind     string `json:"kind"`
		Name     string `json:"name"`
	} `json:"options"`
	Answer string `json:"answer"`
}

// update is a session/update as the client received it (the fields the tests read).
type update struct {
	SessionUpdate string          `json:"sessionUpdate"`
	Content       json.RawMessage `json:"content"`
	ToolCallID    string          `json:"toolCallId"`
	Title         string          `json:"title"`
	Kind          string          `json:"kind"`
	Status        string          `json:"status"`
	Locations     []struct {
		Path string `json:"path"`
	} `json:"locations"`
	Entries []struct {
		Content string `json:"content"`
		Status  string `json:"status"`
	} `json:"entries"`
}

// text is a chunk's text.
func (u update) text() string {
	var c struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(u.Content, &c)
	return c.Text
}

// diffs are a tool_call_update's diff contents.
func (u update) diffs() []diffContent {
	var cs []diffContent
	_ = json.Unmarshal(u.Content, &cs)
	var out []diffContent
	for _, c := range cs {
		if c.Type == "diff" {
			out = append(out, c)
		}
	}
	return out
}

type diffContent struct {
	Type    string  `json:"type"`
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
}

func (p *pair) events() []event {
	b, err := os.ReadFile(p.log)
	if err != nil && !os.IsNotExist(err) {
		p.t.Fatal(err)
	}
	var out []event
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var ev event
		if err := json.Unmarshal(l, &ev); err != nil {
			continue // a line still being written
		}
		out = append(out, ev)
	}
	return out
}

// waitFor polls the client's log until cond holds for some event, and returns the log.
func (p *pair) waitFor(what string, cond func(event) bool) []event {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		evs := p.events()
		for _, ev := range evs {
			if cond(ev) {
				return evs
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the client never logged %s; log:\n%s", what, dump(evs))
		}
		select {
		case err := <-p.clientDone:
			p.clientDone <- err
			evs = p.events()
			for _, ev := range evs {
				if cond(ev) {
					return evs
				}
			}
			p.t.Fatalf("the client exited (%v) without logging %s; log:\n%s", err, what, dump(evs))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// finish waits for the client to run all its steps and exit.
func (p *pair) finish() []event {
	p.t.Helper()
	return p.waitFor("done", func(ev event) bool { return ev.Ev == "done" })
}

func dump(evs []event) string {
	var b strings.Builder
	for _, ev := range evs {
		j, _ := json.Marshal(ev)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// results are the outcomes of the steps, in order.
func results(evs []event) []event {
	var out []event
	for _, ev := range evs {
		if ev.Ev == "result" || ev.Ev == "error" {
			out = append(out, ev)
		}
	}
	return out
}

// updatesOf are the session/update notifications between two step outcomes: those of the
// n-th step (0-based).
func updatesOf(evs []event, n int) []update {
	var out []update
	seen := 0
	for _, ev := range evs {
		switch ev.Ev {
		case "result", "error":
			seen++
		case "update":
			if seen == n {
				out = append(out, ev.Update)
			}
		}
		if seen > n {
			break
		}
	}
	return out
}

func stopReason(t *testing.T, ev event) string {
	t.Helper()
	var r struct {
		StopReason string `json:"stopReason"`
	}
	if ev.Ev != "result" || json.Unmarshal(ev.Result, &r) != nil {
		t.Fatalf("not a prompt result: %+v", ev)
	}
	return r.StopReason
}
