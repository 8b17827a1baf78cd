package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/extend"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// The concrete types satisfy the runner's interfaces.
var (
	_ loop.Store      = (*store.DB)(nil)
	_ loop.Model      = (*provider.Client)(nil)
	_ loop.Approver   = (*tools.Approver)(nil)
	_ loop.ToolRunner = (*tools.Registry)(nil)
	_ loop.Workspaces = (*tools.Manager)(nil)
)

// harness is a runner wired to real parts: fakeai over loopback, SQLite in a temp dir, the
// built-in tools in a temp workspace.
type harness struct {
	t        *testing.T
	srv      *fakeai.Server
	db       *store.DB
	runner   *loop.Runner
	approver *tools.Approver
	ws       string
	rec      *recorder
	pending  chan tools.Pending // calls waiting for a person
	model    *provider.Client
	cfg      loop.Config // what the runner was made with (restart makes another)
}

func modelOf(h *harness) *provider.Client { return h.model }

func toolsOf(t *testing.T) *tools.Registry {
	reg, err := tools.NewRegistry(tools.Builtins()...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func wsOf() *tools.Manager { return tools.NewManager() }

func newHarness(t *testing.T) *harness { t.Helper(); return newHarnessWith(t, nil) }

// newHarnessWith lets a test add to the runner's configuration (hooks, ...).
func newHarnessWith(t *testing.T, configure func(*loop.Config)) *harness {
	t.Helper()
	srv, err := fakeai.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "loopdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	reg, err := tools.NewRegistry(tools.Builtins()...)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, srv: srv, db: db, ws: ws, pending: make(chan tools.Pending, 16)}
	h.model = provider.New(provider.Config{BaseURL: srv.URL(), APIKey: "test-key", Model: "fake-model",
		MaxRetries: -1, RequestTimeout: 10 * time.Second, IdleTimeout: 10 * time.Second})
	h.approver = tools.NewApprover(nil)
	cfg := loop.Config{
		Store: db, Approver: announcing{h.approver, h.pending}, Tools: reg, Workspaces: tools.NewManager(),
		Model:  h.model,
		Prices: core.PriceTable{"fake-model": {InputPerMTok: 1, OutputPerMTok: 2}},
		// The extensions stack.New composes (backend/extend), so runs behave as the app's.
		Extensions: []loop.Extension{extend.Review(), extend.Images(db)},
	}
	if configure != nil {
		configure(&cfg)
	}
	runner := loop.New(cfg)
	h.runner, h.cfg = runner, cfg
	t.Cleanup(runner.Close)
	h.rec = record(t, runner.Bus(), "")
	return h
}

// restart closes the runner and makes a new one over the same database, as a restart of the
// app does: nothing held in memory survives, a new approver waits for the person.
func (h *harness) restart() {
	h.t.Helper()
	h.runner.Close()
	h.approver = tools.NewApprover(nil)
	h.cfg.Approver = announcing{h.approver, h.pending}
	h.runner = loop.New(h.cfg)
	h.t.Cleanup(h.runner.Close)
	h.rec = record(h.t, h.runner.Bus(), "")
}

// announcing hands the test every call that starts waiting for a person.
type announcing struct {
	*tools.Approver
	ch chan tools.Pending
}

func (a announcing) Request(ctx context.Context, req tools.Request) (tools.Decision, error) {
	inner := req.OnPending
	req.OnPending = func(p tools.Pending) {
		if inner != nil {
			inner(p)
		}
		a.ch <- p
	}
	return a.Approver.Request(ctx, req)
}

func (h *harness) write(name, content string) {
	h.t.Helper()
	p := filepath.Join(h.ws, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) session() string {
	h.t.Helper()
	s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "t", Workspace: h.ws, Model: "fake-model"})
	if err != nil {
		h.t.Fatal(err)
	}
	return s.ID
}

// run starts a run and waits for its result.
func (h *harness) run(spec loop.RunSpec) core.Result {
	h.t.Helper()
	id := h.start(spec)
	return h.wait(id)
}

func (h *harness) start(spec loop.RunSpec) string {
	h.t.Helper()
	if spec.SessionID == "" {
		spec.SessionID = h.session()
	}
	if spec.Model == "" {
		spec.Model = "fake-model"
	}
	if spec.Mode == "" {
		spec.Mode = tools.ModeAuto
	}
	id, err := h.runner.Start(context.Background(), spec)
	if err != nil {
		h.t.Fatalf("start: %v", err)
	}
	return id
}

func (h *harness) wait(runID string) core.Result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := h.runner.Wait(ctx, runID)
	if err != nil {
		h.t.Fatalf("wait: %v", err)
	}
	return res
}

// rows returns the session's stored rows as kind + decoded payload.
func (h *harness) rows(sessionID string) []store.Chunk {
	h.t.Helper()
	cs, err := h.db.Chunks(context.Background(), sessionID)
	if err != nil {
		h.t.Fatal(err)
	}
	return cs
}

// wireMessage is the part of a request message the tests look at.
type wireMessage struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// requests decodes the chat requests the fake server received.
func (h *harness) requests() [][]wireMessage {
	h.t.Helper()
	var out [][]wireMessage
	for _, r := range h.srv.Requests() {
		var body struct {
			Messages []wireMessage `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			h.t.Fatalf("request body: %v", err)
		}
		out = append(out, body.Messages)
	}
	return out
}

// checkPairing asserts, on every request sent, that each tool call id of an assistant message
// is answered by exactly one tool message before the next non-tool message, and that no tool
// message answers anything else.
func (h *harness) checkPairing() {
	h.t.Helper()
	for i, msgs := range h.requests() {
		if err := pairingError(msgs); err != nil {
			h.t.Errorf("request %d: %v", i+1, err)
		}
	}
}

func pairingError(msgs []wireMessage) error {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == "tool" {
			return fmt.Errorf("message %d: tool result %s answers no call", i, m.ToolCallID)
		}
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		want := map[string]int{}
		for _, c := range m.ToolCalls {
			want[c.ID] = 0
		}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == "tool"; j++ {
			n, ok := want[msgs[j].ToolCallID]
			if !ok {
				return fmt.Errorf("message %d: tool result for unknown call %s", j, msgs[j].ToolCallID)
			}
			want[msgs[j].ToolCallID] = n + 1
		}
		for id, n := range want {
			if n != 1 {
				return fmt.Errorf("call %s has %d results", id, n)
			}
		}
		i = j - 1
	}
	return nil
}

// recorder keeps every event a subscriber saw.
type recorder struct {
	mu     sync.Mutex
	events []bus.Event
	wake   chan struct{}
}

func record(t *testing.T, b *bus.Bus, sessionID string) *recorder {
	r := &recorder{wake: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	exited := b.Subscribe(ctx, sessionID, func(e bus.Event) {
		r.mu.Lock()
		r.events = append(r.events, e)
		r.mu.Unlock()
		select {
		case r.wake <- struct{}{}:
		default:
		}
	})
	t.Cleanup(func() { cancel(); <-exited })
	return r
}

func (r *recorder) all() []bus.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]bus.Event(nil), r.events...)
}

// waitFor blocks until an event matching f was seen, and returns it.
func (r *recorder) waitFor(t *testing.T, what string, f func(bus.Event) bool) bus.Event {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		for _, e := range r.all() {
			if f(e) {
				return e
			}
		}
		select {
		case <-r.wake:
		case <-deadline:
			t.Fatalf("no %s event arrived", what)
		}
	}
}

func ofType(typ core.EventType, runID string) func(bus.Event) bool {
	return func(e bus.Event) bool { return e.Type == typ && (runID == "" || e.RunID == runID) }
}

// unanswered lists the calls in rows that have no tool_result row.
func unanswered(t *testing.T, rows []store.Chunk) []string {
	t.Helper()
	answered := map[string]bool{}
	var calls []string
	for _, r := range rows {
		switch r.Kind {
		case store.KindToolResult:
			var p store.ToolResultPayload
			if err := json.Unmarshal(r.Payload, &p); err != nil {
				t.Fatal(err)
			}
			answered[p.CallID] = true
		case store.KindAssistant:
			var p store.AssistantPayload
			if err := json.Unmarshal(r.Payload, &p); err != nil {
				t.Fatal(err)
			}
			for _, c := range p.ToolCalls {
				calls = append(calls, c.ID)
			}
		}
	}
	var out []string
	for _, id := range calls {
		if !answered[id] {
			out = append(out, id)
		}
	}
	return out
}

// runRow is the stored run with id.
func runRow(t *testing.T, db *store.DB, sessionID, id string) store.Run {
	t.Helper()
	runs, err := db.ListRuns(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no run %s in session %s", id, sessionID)
	return store.Run{}
}
