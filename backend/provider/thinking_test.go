package provider

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The thinking budget reaches each OpenAI-compatible server in its own documented parameter
// (or not at all where none is documented, and never when off). Every request goes through
// the fake server, which refuses a malformed value as the real one does; the bodies are kept
// in testdata/thinking.golden (go test -update rewrites it).
func TestThinkingBudgetPerDialect(t *testing.T) {
	srv := startFake(t)
	cases := []struct {
		name, dialect, model string
		configured, request  int
		want                 string // in the body ("" when nothing may be sent)
	}{
		{"openai small budget", DialectOpenAI, "gpt-5", 1000, 0, `"reasoning_effort":"low"`},
		{"openai run override", DialectOpenAI, "gpt-5", 1000, 8000, `"reasoning_effort":"medium"`},
		{"openai large budget", DialectOpenAI, "o3", 0, 20000, `"reasoning_effort":"high"`},
		{"openai turned off for the run", DialectOpenAI, "gpt-5", 20000, -1, ""},
		{"openrouter", DialectOpenRouter, "anthropic/claude-sonnet-4.5", 3000, 0, `"reasoning":{"max_tokens":3000}`},
		{"gemini 2.5", DialectGemini, "gemini-2.5-flash", 8192, 0, `"extra_body":{"google":{"thinking_config":{"thinking_budget":8192}}}`},
		{"gemini 3", DialectGemini, "gemini-3-pro-preview", 2000, 0, `"reasoning_effort":"medium"`},
		{"deepseek", DialectDeepSeek, "deepseek-v4-pro", 30000, 0, `"thinking":{"type":"enabled"},"reasoning_effort":"high"`},
		{"kimi documents no budget", DialectKimi, "kimi-k2.6", 4000, 0, ""},
		{"unknown server", "", "qwen3:8b", 4000, 0, ""},
	}
	var golden strings.Builder
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newClient(t, srv.URL(), func(cfg *Config) { cfg.Dialect, cfg.ThinkingBudget = tc.dialect, tc.configured })
			srv.Enqueue(fakeai.Text("ok"))
			resp := c.Stream(context.Background(), Request{Model: tc.model, ThinkingBudget: tc.request,
				Messages: []Message{{Role: RoleUser, Text: "think"}}}, Handler{})
			if resp.Status != StatusOK {
				t.Fatalf("refused: %v", resp.Err)
			}
			reqs := srv.Requests()
			body := string(reqs[len(reqs)-1].Body)
			sent := strings.Contains(body, "reasoning") || strings.Contains(body, "thinking")
			if (tc.want == "" && sent) || (tc.want != "" && !strings.Contains(body, tc.want)) {
				t.Fatalf("body %s, want %q", body, tc.want)
			}
			fmt.Fprintf(&golden, "## %s\n%s\n\n", tc.name, body)
		})
	}
	checkGolden(t, filepath.Join("testdata", "thinking.golden"), golden.String())
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("requests differ from %s (run with -update after checking):\n%s", path, got)
	}
}

// The dialect comes from the base URL's host; a server it does not know gets nothing.
func TestDialectOf(t *testing.T) {
	for url, want := range map[string]string{
		"https://api.openai.com/v1":                                     DialectOpenAI,
		"https://my-team.openai.azure.com/openai/v1":                    DialectOpenAI,
		"https://openrouter.ai/api/v1":                                  DialectOpenRouter,
		"https://generativelanguage.googleapis.com/v1beta/openai":       DialectGemini,
		"https://api.deepseek.com":                                      DialectDeepSeek,
		"https://api.moonshot.ai/v1":                                    DialectKimi,
		"http://localhost:11434/v1":                                     "",
		"https://notopenrouter.ai.example.com/v1":                       "",
		"https://api.openai.com.evil.example/v1":                        "",
		"https://generativelanguage.googleapis.com.example.org/v1/beta": "",
	} {
		if got := DialectOf(url); got != want {
			t.Errorf("DialectOf(%s) = %q, want %q", url, got, want)
		}
	}
}

// Effort rounds up to the smallest level whose documented budget covers the request.
func TestEffort(t *testing.T) {
	for budget, want := range map[int]string{1: "low", 1024: "low", 1025: "medium", 8192: "medium", 8193: "high", 100000: "high"} {
		if got := Effort(budget); got != want {
			t.Errorf("Effort(%d) = %s, want %s", budget, got, want)
		}
	}
}
