package loop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// prefixSession runs a scripted 30-turn session (three prompts, each nine tool turns and an
// answer) through the runner and the real client over loopback, and returns every request
// body the fake received and the runs' results.
func prefixSession(b *testing.B, mk func(srv *fakeai.Server) provider.Model, dialect fakeai.Dialect, model string) ([][]byte, []core.Result) {
	srv, err := fakeai.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	dir := b.TempDir()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(dir, "p.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ws := filepath.Join(dir, "ws")
	for k := range 10 {
		p := filepath.Join(ws, fmt.Sprintf("f%d.txt", k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("line %d of a file in the project\n", k), 20)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	reg, err := tools.NewRegistry(tools.Builtins()...)
	if err != nil {
		b.Fatal(err)
	}
	runner := loop.New(loop.Config{Store: db, Approver: tools.NewApprover(nil), Tools: reg, Workspaces: tools.NewManager(), Model: mk(srv)})
	defer runner.Close()
	s, err := db.CreateSession(ctx, store.NewSession{Title: "p", Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	system := strings.Repeat("You are a careful engineer working in this folder. Read before you write; say what you did. ", 30)
	var results []core.Result
	for run := range 3 {
		for k := range 9 {
			r := fakeai.ToolCalls(fakeai.Call{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d.txt"}`, (run*9+k)%10)}).
				WithReasoning(fmt.Sprintf("Turn %d of run %d: the next file may hold the answer.", k, run))
			srv.Enqueue(r.WithDialect(dialect))
		}
		srv.Enqueue(fakeai.Text(fmt.Sprintf("Run %d: read nine files.", run)).WithReasoning("That is all.").WithDialect(dialect))
		id, err := runner.Start(ctx, loop.RunSpec{SessionID: s.ID, Prompt: fmt.Sprintf("Prompt %d: read the files again.", run),
			Model: model, SystemPrompt: system, Mode: tools.ModeAuto, Limits: core.Limits{MaxTurns: 50, MaxToolCalls: 50}})
		if err != nil {
			b.Fatal(err)
		}
		res, err := runner.Wait(ctx, id)
		if err != nil || res.Status != core.StopCompleted {
			b.Fatalf("run %d: %+v %v", run, res, err)
		}
		results = append(results, res)
	}
	var bodies [][]byte
	for _, r := range srv.Requests() {
		bodies = append(bodies, r.Body)
	}
	return bodies, results
}

// anthropicStable reports whether next's bytes start with cur's bytes up to cur's last cache
// breakpoint. The breakpoint markers are left out of both: a marker is an instruction, not
// part of the cached content, and it moves forward every turn by design (the API hashes the
// blocks, so moving it never invalidates what was cached before it).
func anthropicStable(cur, next []byte) bool {
	at := bytes.LastIndex(cur, []byte(provider.CacheMarker))
	if at < 0 {
		return false
	}
	prefix := bytes.ReplaceAll(cur[:at], []byte(provider.CacheMarker), nil)
	return bytes.HasPrefix(bytes.ReplaceAll(next, []byte(provider.CacheMarker), nil), prefix)
}

// openAIStable reports whether next's bytes start with cur's bytes up to the end of cur's last
// assistant message (what OpenAI-style automatic prompt caching matches on).
func openAIStable(cur, next []byte) bool {
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(cur, &body) != nil {
		return false
	}
	end := -1
	for _, m := range body.Messages {
		if bytes.HasPrefix(m, []byte(`{"role":"assistant"`)) {
			end = bytes.LastIndex(cur, m) + len(m)
		}
	}
	if end < 0 {
		return true // nothing cached yet: the first request
	}
	return bytes.HasPrefix(next, cur[:end])
}

func stablePct(bodies [][]byte, stable func(cur, next []byte) bool) float64 {
	n := 0
	for i := 0; i+1 < len(bodies); i++ {
		if stable(bodies[i], bodies[i+1]) {
			n++
		}
	}
	return 100 * float64(n) / float64(len(bodies)-1)
}

// BenchmarkPrefixStability: across a scripted 30-turn session, the share of requests whose
// bytes up to their last cache breakpoint (Anthropic, markers left out) or their last
// assistant turn (OpenAI-style, DeepSeek's thinking turns) are a byte-identical prefix of the
// next request's, and the share of input tokens the fake Messages API reported read from its
// cache. Goals: 100 % and ≥ 0.9. The script has no compaction: a compaction
// rewrites the prefix by design (the requests after it are built afresh).
func BenchmarkPrefixStability(b *testing.B) {
	opts := func(c provider.Config) provider.Config {
		c.MaxRetries, c.RequestTimeout, c.IdleTimeout = -1, 10*time.Second, 10*time.Second
		return c
	}
	var antPct, oaPct, share float64
	for i := 0; i < b.N; i++ {
		bodies, results := prefixSession(b, func(srv *fakeai.Server) provider.Model {
			return provider.NewAnthropic(opts(provider.Config{Name: "anthropic", BaseURL: strings.TrimSuffix(srv.URL(), "/v1"), ThinkingBudget: 2048}))
		}, "", "claude-sonnet-4-5")
		if len(bodies) != 30 {
			b.Fatalf("%d requests", len(bodies))
		}
		antPct = stablePct(bodies, anthropicStable)
		var in, read int64
		for _, r := range results {
			in, read = in+r.InputTokens, read+r.CacheReadTokens
		}
		share = float64(read) / float64(in)
		bodies, _ = prefixSession(b, func(srv *fakeai.Server) provider.Model {
			return provider.New(opts(provider.Config{Name: "deepseek", BaseURL: srv.URL()}))
		}, fakeai.DialectDeepSeek, "deepseek-v4-pro")
		oaPct = stablePct(bodies, openAIStable)
	}
	b.ReportMetric(antPct, "prefix_stable_pct_anthropic")
	b.ReportMetric(oaPct, "prefix_stable_pct_openai")
	b.ReportMetric(share, "cache_read_share")
}

// The measures can fail: a change before the last breakpoint or assistant turn is caught.
func TestPrefixMeasuresCatchAChange(t *testing.T) {
	cur := []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"` + provider.CacheMarker + `}]}]}`)
	moved := []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"user","content":[{"type":"text","text":"b"` + provider.CacheMarker + `}]}]}`)
	edited := []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"A"}]},{"role":"user","content":[{"type":"text","text":"b"` + provider.CacheMarker + `}]}]}`)
	if !anthropicStable(cur, moved) || anthropicStable(cur, edited) {
		t.Error("anthropicStable")
	}
	oa := []byte(`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b","reasoning_content":"r"},{"role":"user","content":"c"}]}`)
	next := []byte(`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b","reasoning_content":"r"},{"role":"user","content":"c"},{"role":"assistant","content":"d"}]}`)
	dropped := []byte(`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}`)
	if !openAIStable(oa, next) || openAIStable(oa, dropped) {
		t.Error("openAIStable")
	}
}
