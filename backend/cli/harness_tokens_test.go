package cli

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop/core"
)

// maxHarnessTokens is the most Loopdesk's own part of the first request (its system prompt and
// the built-in tools' schemas, no instruction files) may weigh: peers carry 4,500 to 8,200.
const maxHarnessTokens = 2000

// run_started says what Loopdesk adds to each request, and the fake server's log of the first
// request agrees: its system message is the system figure, its tools array the tools figure.
func TestHarnessTokensMatchTheFirstRequestAndStayUnder2000(t *testing.T) {
	e := runNewEnv(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no personal AGENTS.md
	e.srv.Enqueue(fakeai.Text("hello"))
	r := e.run(context.Background(), "", "--json", "--approve", "read-only", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var h *core.HarnessTokens
	for _, l := range runLines(t, r.stdout) {
		if l["type"] == "run_started" {
			b, _ := json.Marshal(l["harness_tokens"])
			if err := json.Unmarshal(b, &h); err != nil {
				t.Fatal(err)
			}
		}
	}
	if h == nil || h.Total == 0 {
		t.Fatalf("run_started carries no harness_tokens:\n%s", r.stdout)
	}
	reqs := e.srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the fake server")
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) == 0 || body.Messages[0].Role != "system" {
		t.Fatalf("the first request has no system message: %s", reqs[0].Body)
	}
	if got := core.EstimateTokens(body.Messages[0].Content); h.System != got || h.Instructions != 0 || len(h.MCP) != 0 {
		t.Errorf("system %d (instructions %d, mcp %v); the request's system message estimates %d", h.System, h.Instructions, h.MCP, got)
	}
	// The array's separators aside, the tools figure is the request's tools.
	if wire := core.EstimateTokens(string(body.Tools)); h.Tools < wire*95/100 || h.Tools > wire*105/100 {
		t.Errorf("tools %d; the request's tools array estimates %d", h.Tools, wire)
	}
	if !h.Estimated || h.Total != h.System+h.Tools+h.Notes {
		t.Errorf("harness_tokens = %+v: not estimated, or the parts do not add up", *h)
	}
	t.Logf("the first request carries %d tokens of Loopdesk's own (system %d, tools %d; %d bytes of system prompt and tool schemas)",
		h.Total, h.System, h.Tools, len(body.Messages[0].Content)+len(body.Tools))
	if h.Total > maxHarnessTokens {
		t.Errorf("Loopdesk's own part of the first request is %d tokens, over %d", h.Total, maxHarnessTokens)
	}
}
