package fakeai

import (
	"strings"
	"testing"
)

// A malformed thinking parameter is refused with a 400 in the server's own error shape, and
// uses no scripted reply; a well-formed one is answered.
func TestThinkingParametersRefusedWhenMalformed(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	url := s.URL() + "/chat/completions"
	body := func(model, extra string) string {
		return `{"model":"` + model + `","stream":true,"messages":[{"role":"user","content":"hi"}]` + extra + `}`
	}
	for _, tc := range []struct {
		name, model, extra, want string
	}{
		{"effort not a level", "gpt-5", `,"reasoning_effort":"extreme"`, `"param":"reasoning_effort"`},
		{"effort a number", "gpt-5", `,"reasoning_effort":3`, "Supported values are: 'low', 'medium', and 'high'."},
		{"openrouter max_tokens a string", "anthropic/claude-sonnet-4.5", `,"reasoning":{"max_tokens":"lots"}`, "reasoning.max_tokens must be a positive integer"},
		{"openrouter effort and max_tokens", "openai/o3", `,"reasoning":{"effort":"high","max_tokens":2000}`, `only one of \"reasoning.effort\" and \"reasoning.max_tokens\"`},
		{"deepseek thinking type", "deepseek-v4-pro", `,"thinking":{"type":"on"}`, "thinking.type"},
		{"gemini budget out of range", "gemini-2.5-flash", `,"extra_body":{"google":{"thinking_config":{"thinking_budget":50000}}}`, "from 0 to 24576"},
		{"gemini pro budget below its minimum", "gemini-2.5-pro", `,"extra_body":{"google":{"thinking_config":{"thinking_budget":64}}}`, "from 128 to 32768"},
		{"gemini effort and budget together", "gemini-2.5-flash", `,"reasoning_effort":"low","extra_body":{"google":{"thinking_config":{"thinking_budget":1024}}}`, "cannot both be set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, got := postJSON(t, url, nil, body(tc.model, tc.extra))
			if code != 400 || !strings.Contains(got, tc.want) {
				t.Fatalf("%d %s, want 400 with %q", code, got, tc.want)
			}
		})
	}
	s.Enqueue(Text("thought about it"))
	for _, extra := range []string{`,"reasoning_effort":"medium"`, `,"reasoning":{"max_tokens":2000}`,
		`,"thinking":{"type":"enabled"},"reasoning_effort":"high"`, `,"extra_body":{"google":{"thinking_config":{"thinking_budget":8192}}}`} {
		if code, got := postJSON(t, url, nil, body("gemini-2.5-flash", extra)); code != 200 {
			t.Fatalf("%s: %d %s", extra, code, got)
		}
	}
	if s.Pending() != 0 {
		t.Fatal("the scripted reply was not used by the first good request")
	}
}
