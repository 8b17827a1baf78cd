package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// bodyModel builds each request's body with the real adapter (Prepare: the parts Stream
// sends) and answers from a script without a network or a server, so a benchmark times the Go
// work of a tool round: the runner, the core, the store's durable writes, the tool, and the
// request built for the next call. It records, per call, the time since the last call
// returned plus the time the body took.
type bodyModel struct {
	c interface {
		Prepare(provider.Request) (*provider.WireBody, error)
	}
	origin provider.Origin
	calls  int // tool rounds before the final answer

	mu       sync.Mutex
	n        int
	returned time.Time
	rounds   []time.Duration
	bytes    int
}

func (m *bodyModel) Stream(ctx context.Context, req provider.Request, h provider.Handler) provider.Response {
	start := time.Now()
	body, err := m.c.Prepare(req)
	built := time.Since(start)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		return provider.Response{Status: provider.StatusProviderError, Err: err}
	}
	if !m.returned.IsZero() {
		m.rounds = append(m.rounds, start.Sub(m.returned)+built)
	}
	m.bytes = body.Len()
	m.n++
	defer func() { m.returned = time.Now() }()
	u := provider.Usage{InputTokens: int64(body.Len() / 4), OutputTokens: 20}
	if m.n > m.calls {
		return provider.Response{Text: "done", Status: provider.StatusOK, Usage: u, Origin: m.origin,
			Raw: json.RawMessage(`{"role":"assistant","content":"done","reasoning_content":"finished"}`)}
	}
	id := fmt.Sprintf("call_b%d", m.n)
	args := fmt.Sprintf(`{"path":"d%d"}`, m.n) // a new folder each time: no loop detected
	raw, _ := json.Marshal(map[string]any{"role": "assistant", "content": "", "reasoning_content": "look again",
		"tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]string{"name": "list_dir", "arguments": args}}}})
	return provider.Response{Reasoning: "look again", Status: provider.StatusOK, Usage: u, Origin: m.origin, Raw: raw,
		ToolCalls: []provider.ToolCall{{ID: id, Name: "list_dir", Arguments: args}}}
}

// seedSession appends n rows of a thinking tool loop: a user row, then rounds of an assistant
// row (text, reasoning, a call, its raw message and origin), its approval and its result.
func seedSession(b *testing.B, db *store.DB, ws string, n int, origin provider.Origin) string {
	ctx := context.Background()
	s, err := db.CreateSession(ctx, store.NewSession{Title: "big", Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	rows := []store.NewChunk{{Kind: store.KindUser, Payload: store.UserPayload{Text: "Go through the project and report."}}}
	o := &store.Origin{Provider: origin.Provider, Kind: origin.Kind, Model: origin.Model}
	for k := 0; len(rows) < n; k++ {
		id := fmt.Sprintf("call_s%d", k)
		args := fmt.Sprintf(`{"path":"src/pkg%d/file%d.go"}`, k%50, k)
		reasoning := fmt.Sprintf("Step %d: the next file should explain how the parser handles this case.", k)
		raw, _ := json.Marshal(map[string]any{"role": "assistant", "content": "Reading it.", "reasoning_content": reasoning,
			"tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]string{"name": "read_file", "arguments": args}}}})
		rows = append(rows,
			store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{Text: "Reading it.", Reasoning: reasoning,
				ToolCalls: []store.ToolCall{{ID: id, Name: "read_file", Arguments: args}}, Origin: o, Raw: raw}},
			store.NewChunk{Kind: store.KindApproval, Payload: store.ApprovalPayload{CallID: id, Tool: "read_file", Decision: "approved", By: "mode:auto"}},
			store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: id, Name: "read_file",
				Content: strings.Repeat(fmt.Sprintf("line of file %d with some code in it\n", k), 6)}})
	}
	if _, err := db.Append(ctx, s.ID, "", rows[:n]...); err != nil {
		b.Fatal(err)
	}
	return s.ID
}

// roundRig is a runner on a real store whose model is a bodyModel.
type roundRig struct {
	b      *testing.B
	db     *store.DB
	ws     string
	m      *bodyModel
	runner *loop.Runner
	origin provider.Origin
}

func newRoundRig(b *testing.B) *roundRig {
	dir := b.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "b.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ws := filepath.Join(dir, "ws")
	for k := range 30 {
		if err := os.MkdirAll(filepath.Join(ws, fmt.Sprintf("d%d", k)), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	reg, err := tools.NewRegistry(tools.Builtins()...)
	if err != nil {
		b.Fatal(err)
	}
	origin := provider.Origin{Provider: "deepseek", Kind: provider.KindOpenAI, Model: "deepseek-v4-pro"}
	m := &bodyModel{c: provider.New(provider.Config{Name: "deepseek", Model: "deepseek-v4-pro"}), origin: origin, calls: 10}
	runner := loop.New(loop.Config{Store: db, Approver: tools.NewApprover(nil), Tools: reg, Workspaces: tools.NewManager(), Model: m})
	b.Cleanup(runner.Close)
	return &roundRig{b: b, db: db, ws: ws, m: m, runner: runner, origin: origin}
}

// rounds runs one prompt of m.calls tool rounds on the session and returns the median round.
func (r *roundRig) rounds(sid string) float64 {
	r.m.mu.Lock()
	r.m.n, r.m.returned, r.m.rounds = 0, time.Time{}, nil
	r.m.mu.Unlock()
	ctx := context.Background()
	id, err := r.runner.Start(ctx, loop.RunSpec{SessionID: sid, Prompt: "one more look", Model: "deepseek-v4-pro", Mode: tools.ModeAuto,
		Limits: core.Limits{MaxTurns: 100, MaxToolCalls: 100}})
	if err != nil {
		r.b.Fatal(err)
	}
	if res, err := r.runner.Wait(ctx, id); err != nil || res.Status != core.StopCompleted {
		r.b.Fatalf("run: %+v %v", res, err)
	}
	ms := make([]float64, len(r.m.rounds))
	for i, d := range r.m.rounds {
		ms[i] = float64(d)
	}
	return median(ms)
}

// BenchmarkToolRound10k: one tool round (the model's tool call stored, approved, run, its
// result stored, the next request built) in a session of 10,000 rows against the same round
// in a session of 10 rows. Each iteration makes six pairs, each a run of 10 rounds on a new
// 10-row session and one on the 10,000-row session (seeded once; it grows by each run's
// rows, and the runner keeps its caches between runs as it does for a real session), so a
// busy machine weighs on both sides of a pair alike; x_10k_vs_10 is the median of the pairs'
// ratios of median rounds. Goal: ≤ 1.5.
func BenchmarkToolRound10k(b *testing.B) {
	r := newRoundRig(b)
	big := seedSession(b, r.db, r.ws, 10_000, r.origin)
	r.rounds(big) // the first run on a session builds its request afresh once
	var small, large, ratios []float64
	for i := 0; i < b.N; i++ {
		for range 6 {
			s := r.rounds(seedSession(b, r.db, r.ws, 10, r.origin))
			l := r.rounds(big)
			small, large, ratios = append(small, s), append(large, l), append(ratios, l/s)
		}
	}
	b.ReportMetric(median(small)/1e6, "ms/round_10")
	b.ReportMetric(median(large)/1e6, "ms/round_10k")
	b.ReportMetric(median(ratios), "x_10k_vs_10")
	b.ReportMetric(float64(r.m.bytes)/1e6, "MB/request_10k")
}

// BenchmarkRequestBuild10k: building the next request of a 10,000-row session from its rows,
// afresh (store.Turns and the adapter's encoding of every message: what each model call did
// without the caches) against through the session's caches after one tool round's rows were
// appended (store.TurnCache and provider.Cache: what the runner does now).
func BenchmarkRequestBuild10k(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "r.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	origin := provider.Origin{Provider: "deepseek", Kind: provider.KindOpenAI, Model: "deepseek-v4-pro"}
	sid := seedSession(b, db, b.TempDir(), 10_000, origin)
	rows, err := db.Chunks(ctx, sid)
	if err != nil {
		b.Fatal(err)
	}
	c := provider.New(provider.Config{Name: "deepseek", Model: "deepseek-v4-pro"})
	var tc store.TurnCache
	cache := &provider.Cache{}
	build := func(rows []store.Chunk, tc *store.TurnCache, cache *provider.Cache) {
		var msgs []provider.Message
		if tc == nil {
			msgs, err = store.Turns(rows)
		} else {
			msgs, err = tc.Turns(rows)
		}
		if err == nil {
			_, err = c.Prepare(provider.Request{System: "sys", Messages: msgs, Cache: cache})
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	// A tool round's rows, appended to the mirror as the runner's Append returns them.
	round := func(k int) []store.Chunk {
		id := fmt.Sprintf("call_r%d", k)
		a, _ := json.Marshal(store.AssistantPayload{ToolCalls: []store.ToolCall{{ID: id, Name: "list_dir", Arguments: "{}"}}})
		r, _ := json.Marshal(store.ToolResultPayload{CallID: id, Name: "list_dir", Content: "a\nb\n"})
		last := rows[len(rows)-1].Seq
		return []store.Chunk{{Seq: last + 1, Kind: store.KindAssistant, Payload: a}, {Seq: last + 2, Kind: store.KindToolResult, Payload: r}}
	}
	build(rows, &tc, cache)
	var fresh, cached []float64
	for i := 0; i < b.N; i++ {
		rows = append(rows[:len(rows):len(rows)], round(i)...)
		t0 := time.Now()
		build(rows, nil, nil)
		t1 := time.Now()
		build(rows, &tc, cache)
		fresh, cached = append(fresh, float64(t1.Sub(t0))), append(cached, float64(time.Since(t1)))
	}
	b.ReportMetric(median(fresh)/1e6, "ms/fresh")
	b.ReportMetric(median(cached)/1e6, "ms/cached")
}
