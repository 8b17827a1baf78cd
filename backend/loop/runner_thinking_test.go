package loop_test

import (
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// A run's thinking budget (run --thinking-budget) reaches an OpenAI-compatible server in its
// dialect's parameter on every request of the run — the tool loop's second request too —
// and a run with the budget turned off sends none.
func TestRunThinkingBudgetOnEveryOpenAIRequest(t *testing.T) {
	srv, err := fakeai.Start() // an OpenRouter-like server: the fake refuses a malformed reasoning field
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	h := newHarnessWith(t, func(c *loop.Config) {
		c.Model = provider.New(provider.Config{BaseURL: srv.URL(), APIKey: "test-key", Model: "fake-model", Dialect: provider.DialectOpenRouter,
			ThinkingBudget: 2048, MaxRetries: -1, RequestTimeout: 10 * time.Second, IdleTimeout: 10 * time.Second})
	})
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "list_dir", Arguments: `{}`}), fakeai.Text("empty"), fakeai.Text("no thinking"))
	sid := h.session()
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "look", Mode: tools.ModeAuto, ThinkingBudget: 6000}); res.Status != core.StopCompleted {
		t.Fatalf("result %+v", res)
	}
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "quick", Mode: tools.ModeAuto, ThinkingBudget: -1}); res.Status != core.StopCompleted {
		t.Fatalf("result %+v", res)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs[:2] {
		if !strings.HasSuffix(string(r.Body), `,"reasoning":{"max_tokens":6000}}`) {
			t.Fatalf("request %d does not carry the run's budget: ...%s", i+1, tail(r.Body))
		}
	}
	if strings.Contains(string(reqs[2].Body), `"reasoning"`) {
		t.Fatalf("a run with thinking off sent a budget: ...%s", tail(reqs[2].Body))
	}
}

func tail(b []byte) string { return string(b[max(0, len(b)-120):]) }
