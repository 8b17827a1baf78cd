package loop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Every model's turn goes back exactly as it came: thinking models' tool loops run against
// fakes as strict as the real servers (they answer 400 with the server's own message when a
// reasoning_content, thought_signature, reasoning_details or thinking signature they sent is
// missing from a later request), through the real runner, store and tools. The requests
// each run sent are kept as golden transcripts in testdata/wire (go test -update rewrites).

// switchable is the runner's model, changed between runs as a session changes provider.
type switchable struct {
	mu sync.Mutex
	m  provider.Model
}

func (s *switchable) set(m provider.Model) { s.mu.Lock(); s.m = m; s.mu.Unlock() }

func (s *switchable) Stream(ctx context.Context, req provider.Request, h provider.Handler) provider.Response {
	s.mu.Lock()
	m := s.m
	s.mu.Unlock()
	return m.Stream(ctx, req, h)
}

// newFidelity is a harness whose runner's model can be switched between providers.
func newFidelity(t *testing.T) (*harness, *switchable) {
	h := newHarness(t)
	sw := &switchable{m: h.model}
	r := loop.New(loop.Config{Store: h.db, Approver: h.approver, Tools: toolsOf(t), Workspaces: wsOf(), Model: sw,
		Extensions: h.cfg.Extensions})
	t.Cleanup(r.Close)
	h.runner = r
	h.write("a.txt", "alpha\n")
	h.write("b.txt", "beta\n")
	h.write("sub/c.txt", "gamma\n")
	return h, sw
}

func openaiAs(h *harness, name string) provider.Model {
	return provider.New(provider.Config{Name: name, BaseURL: h.srv.URL(), APIKey: "test-key",
		MaxRetries: -1, RequestTimeout: 10 * time.Second, IdleTimeout: 10 * time.Second})
}

func anthropicAs(h *harness, name string, budget int) provider.Model {
	m, err := provider.Open(provider.Config{Name: name, Kind: provider.KindAnthropic, ThinkingBudget: budget,
		BaseURL: strings.TrimSuffix(h.srv.URL(), "/v1"), APIKey: "test-key",
		MaxRetries: -1, RequestTimeout: 10 * time.Second, IdleTimeout: 10 * time.Second})
	if err != nil {
		h.t.Fatal(err)
	}
	return m
}

// runOK runs spec and fails the test unless it completed.
func runOK(t *testing.T, h *harness, spec loop.RunSpec) core.Result {
	t.Helper()
	res := h.run(spec)
	if res.Status != core.StopCompleted {
		t.Fatalf("run on %s: %s: %s", spec.Model, res.Status, res.Error)
	}
	return res
}

// assistantRows are the session's assistant payloads.
func assistantRows(t *testing.T, h *harness, sid string) []store.AssistantPayload {
	t.Helper()
	var out []store.AssistantPayload
	for _, c := range h.rows(sid) {
		if c.Kind != store.KindAssistant {
			continue
		}
		var p store.AssistantPayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// wireGolden compares every request the fake received with testdata/wire/name.golden: the
// path and each message on its own line.
func wireGolden(t *testing.T, h *harness, name string) {
	t.Helper()
	var b strings.Builder
	for i, r := range h.srv.Requests() {
		var body struct {
			Model    string            `json:"model"`
			Thinking json.RawMessage   `json:"thinking"`
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		fmt.Fprintf(&b, "request %d %s %s model=%s thinking=%s\n", i+1, r.Method, r.Path, body.Model, body.Thinking)
		for _, m := range body.Messages {
			var c bytes.Buffer
			if err := json.Compact(&c, m); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "  %s\n", c.String())
		}
	}
	path := filepath.Join("testdata", "wire", name+".golden")
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != b.String() {
		t.Errorf("requests differ from %s (run with -update after checking):\n%s", path, diffLines(string(want), b.String()))
	}
}

// diffLines shows the first differing line of two texts.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, a, b)
		}
	}
	return ""
}

func call(id, name, args string) fakeai.Call { return fakeai.Call{ID: id, Name: name, Arguments: args} }

func TestDeepSeekV4ThinkingToolLoopThreeRounds(t *testing.T) {
	h, sw := newFidelity(t)
	sw.set(openaiAs(h, "deepseek"))
	d := fakeai.DialectDeepSeek
	h.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{Name: "read_file", Arguments: `{"path":"a.txt"}`}).WithReasoning("I should read a.txt first.").WithDialect(d),
		fakeai.ToolCalls(fakeai.Call{Name: "read_file", Arguments: `{"path":"b.txt"}`}).WithReasoning("Now b.txt.").WithDialect(d),
		fakeai.ToolCalls(fakeai.Call{Name: "list_dir", Arguments: `{"path":"sub"}`}).WithReasoning("And what is in sub.").WithDialect(d),
		fakeai.Text("alpha, beta, and sub holds c.txt").WithReasoning("All read.").WithDialect(d),
	)
	sid := h.session()
	res := runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "read everything", Model: "deepseek-v4-pro"})
	if res.Turns != 4 || res.ToolCalls != 3 {
		t.Fatalf("result %+v", res)
	}
	rows := assistantRows(t, h, sid)
	if rows[0].Reasoning != "I should read a.txt first." || rows[0].Origin == nil ||
		*rows[0].Origin != (store.Origin{Provider: "deepseek", Kind: "openai", Model: "deepseek-v4-pro"}) {
		t.Fatalf("first turn stored as %+v", rows[0])
	}
	// The fourth request carries all three thinking turns back, each with its reasoning.
	reqs := h.srv.Requests()
	if n := strings.Count(string(reqs[3].Body), `"reasoning_content":`); n != 3 {
		t.Errorf("the last request carries %d reasoning_content fields, want 3", n)
	}
	h.checkPairing()
	wireGolden(t, h, "deepseek_v4_three_rounds")
}

func TestStrictFakeRefusesAProjectionOfAThinkingTurn(t *testing.T) {
	// The control: the same loop with the turn's raw message dropped fails the way DeepSeek
	// does. A fake that accepted it would test nothing.
	h, sw := newFidelity(t)
	sw.set(stripRaw{openaiAs(h, "deepseek")})
	h.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{Name: "read_file", Arguments: `{"path":"a.txt"}`}).WithReasoning("Read it.").WithDialect(fakeai.DialectDeepSeek),
		fakeai.Text("never sent"),
	)
	res := h.run(loop.RunSpec{Prompt: "read a", Model: "deepseek-v4-pro"})
	if res.Status != core.StopProviderError || !strings.Contains(res.Error, fakeai.DeepSeekMissingReasoning) {
		t.Fatalf("without the raw turn: %s %q", res.Status, res.Error)
	}
}

// stripRaw is a model whose turns keep only the portable projection (what Loopdesk did before).
type stripRaw struct{ provider.Model }

func (s stripRaw) Stream(ctx context.Context, req provider.Request, h provider.Handler) provider.Response {
	r := s.Model.Stream(ctx, req, h)
	r.Raw = nil
	return r
}

func TestGemini3ParallelCallsWithSignatures(t *testing.T) {
	h, sw := newFidelity(t)
	sw.set(openaiAs(h, "gemini"))
	g := fakeai.DialectGemini
	h.srv.Enqueue(
		// A read and a write: they run one after the other, so the results' order is fixed.
		fakeai.ToolCalls(call("g1", "read_file", `{"path":"a.txt"}`), call("g2", "write_file", `{"path":"d.txt","content":"delta"}`)).WithDialect(g),
		fakeai.ToolCalls(call("g3", "list_dir", `{"path":"sub"}`)).WithDialect(g),
		fakeai.Text("done").WithDialect(g),
	)
	runOK(t, h, loop.RunSpec{Prompt: "read a, write d", Model: "gemini-3-pro-preview"})
	last := string(h.srv.Requests()[2].Body)
	for _, want := range []string{`"id":"g1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"},"extra_content":{"google":{"thought_signature":"EjQKMgEMOdbHJChLX75QUCJjyYlm0001ZmFrZQ=="}}`,
		`"extra_content":{"google":{"thought_signature":"EjQKMgEMOdbHJChLX75QUCJjyYlm0002ZmFrZQ=="}}`} {
		if !strings.Contains(last, want) {
			t.Errorf("the last request lacks %s", want)
		}
	}
	if strings.Count(last, "thought_signature") != 2 {
		t.Errorf("signatures invented for calls that had none: %s", last)
	}
	wireGolden(t, h, "gemini3_parallel_signatures")
}

func TestKimiThinkingToolLoop(t *testing.T) {
	h, sw := newFidelity(t)
	sw.set(openaiAs(h, "kimi"))
	k := fakeai.DialectKimi
	h.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{Name: "read_file", Arguments: `{"path":"a.txt"}`}).WithReasoning("Look at a.").WithDialect(k),
		fakeai.ToolCalls(fakeai.Call{Name: "list_dir", Arguments: `{"path":"sub"}`}).WithReasoning("Then sub.").WithDialect(k),
		fakeai.Text("alpha; c.txt").WithReasoning("Done.").WithDialect(k),
	)
	runOK(t, h, loop.RunSpec{Prompt: "look", Model: "kimi-k2-thinking"})
	if body := string(h.srv.Requests()[2].Body); !strings.Contains(body, `"id":"functions.read_file:10"`) {
		t.Errorf("Kimi's call id was not kept: %s", body)
	}
	h.checkPairing()
	wireGolden(t, h, "kimi_thinking")
}

func TestOpenRouterReasoningDetails(t *testing.T) {
	h, sw := newFidelity(t)
	sw.set(openaiAs(h, "openrouter"))
	o := fakeai.DialectOpenRouter
	h.srv.Enqueue(
		fakeai.ToolCalls(call("toolu_1", "read_file", `{"path":"a.txt"}`)).WithReasoning("I will read the file.").WithDialect(o),
		fakeai.Text("It says alpha.").WithReasoning("Got it.").WithDialect(o),
	)
	sid := h.session()
	runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "read a", Model: "anthropic/claude-sonnet-4.5"})
	raw := string(assistantRows(t, h, sid)[0].Raw)
	want := `"reasoning":"I will read the file.","reasoning_details":[{"type":"reasoning.text","text":"I will read the file.","format":"anthropic-claude-v1","index":0,"signature":"ErUBCkYIBxgCKkDfake0001sig"}]`
	if !strings.Contains(raw, want) {
		t.Errorf("reasoning_details not merged by index:\n%s\nwant it to contain\n%s", raw, want)
	}
	wireGolden(t, h, "openrouter_reasoning_details")
}

// Gemini 3 through OpenRouter streams reasoning.text pieces and a reasoning.encrypted item at
// the same index; OpenRouter refuses a tool loop's next request whose reasoning_details differ
// from what it sent (the fake, like the real upstream, answers 400). The encrypted item goes
// back as an item of its own, unmerged, and the loop finishes.
func TestOpenRouterGemini3ToolLoopKeepsTheEncryptedItem(t *testing.T) {
	h, sw := newFidelity(t)
	sw.set(openaiAs(h, "openrouter"))
	o := fakeai.DialectOpenRouter
	h.srv.Enqueue(
		fakeai.ToolCalls(call("call_1", "read_file", `{"path":"a.txt"}`)).WithReasoning("I will read the file.").WithDialect(o),
		fakeai.Text("It says alpha.").WithReasoning("Got it.").WithDialect(o),
	)
	sid := h.session()
	runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "read a", Model: "google/gemini-3-pro-preview"})
	raw := string(assistantRows(t, h, sid)[0].Raw)
	want := `{"type":"reasoning.encrypted","data":"CiQB0e2Kb3fake0001encrypted","id":"tool_fake_0001","format":"google-gemini-v1","index":0}`
	if !strings.Contains(raw, want) {
		t.Errorf("the encrypted item was not kept as sent:\n%s\nwant it to contain\n%s", raw, want)
	}
}
