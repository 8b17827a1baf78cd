package provider

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

func newAnthropic(t testing.TB, srv *fakeai.Server, mod func(*Config)) (*Anthropic, *waits) {
	t.Helper()
	cfg := Config{Name: "claude", Kind: KindAnthropic, BaseURL: strings.TrimSuffix(srv.URL(), "/v1"), APIKey: testKey,
		Model: "claude-sonnet-4-5", RequestTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second, BackoffBase: time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	m, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := m.(*Anthropic)
	w := &waits{}
	c.sleep = func(ctx context.Context, d time.Duration) error {
		w.mu.Lock()
		w.d = append(w.d, d)
		w.mu.Unlock()
		return ctx.Err()
	}
	return c, w
}

func TestOpenRefusesAnUnknownKind(t *testing.T) {
	if _, err := Open(Config{Name: "x", Kind: "gemini"}); err == nil || !strings.Contains(err.Error(), `unknown kind "gemini"`) {
		t.Fatalf("err %v", err)
	}
	if m, err := Open(Config{}); err != nil || m.(*Client) == nil {
		t.Fatalf("the default kind is openai: %v", err)
	}
}

func TestAnthropicStreamsThinkingTextAndToolUse(t *testing.T) {
	srv := startFake(t, fakeai.WithAPIKey(testKey))
	srv.Enqueue(fakeai.TextThenTools("Reading.", fakeai.Call{ID: "toolu_1", Name: "read_file", Arguments: `{"path":"ä.txt"}`}).
		WithReasoning("Think first."))
	c, _ := newAnthropic(t, srv, func(c *Config) { c.ThinkingBudget = 1500 })
	var text, reasoning string
	resp := c.Stream(context.Background(), Request{Messages: []Message{{Role: RoleSystem, Text: "Be brief."}, {Role: RoleUser, Text: "go"}},
		Tools: []ToolSpec{{Name: "read_file", Parameters: json.RawMessage(`{"type":"object"}`)}}},
		Handler{OnText: func(d string) { text += d }, OnReasoning: func(d string) { reasoning += d }})
	if resp.Err != nil {
		t.Fatal(resp.Err)
	}
	if text != "Reading." || reasoning != "Think first." || resp.Text != text || resp.Reasoning != reasoning {
		t.Errorf("deltas %q %q, response %q %q", text, reasoning, resp.Text, resp.Reasoning)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0] != (ToolCall{ID: "toolu_1", Name: "read_file", Arguments: `{"path":"ä.txt"}`}) {
		t.Fatalf("calls %+v", resp.ToolCalls)
	}
	if resp.Origin != (Origin{Provider: "claude", Kind: KindAnthropic, Model: "claude-sonnet-4-5"}) {
		t.Errorf("origin %+v", resp.Origin)
	}
	if !strings.HasPrefix(string(resp.Raw), `{"role":"assistant","content":[{"type":"thinking","thinking":"Think first.","signature":"`) ||
		!strings.HasSuffix(string(resp.Raw), `{"type":"text","text":"Reading."},{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"ä.txt"}}]}`) {
		t.Errorf("raw %s", resp.Raw)
	}
	req := srv.Requests()[0]
	if req.Path != "/v1/messages" || req.Header.Get("x-api-key") != testKey || req.Header.Get("Authorization") != "" ||
		req.Header.Get("anthropic-version") == "" {
		t.Errorf("request %s %v", req.Path, req.Header)
	}
	if req.Header.Get("Content-Length") != strconv.Itoa(len(req.Body)) {
		t.Errorf("sent without its length (chunked?): %v", req.Header)
	}
	body := string(req.Body)
	for _, want := range []string{`"thinking":{"type":"enabled","budget_tokens":1500}`, `"max_tokens":9692`,
		`"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}]`,
		`"input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}]`} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %s: %s", want, body)
		}
	}
}

func TestAnthropicRetriesOverloadedAndRateLimitsHonouringRetryAfter(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.HTTPError(529, "").WithRetryAfter("2"), fakeai.HTTPError(429, "").WithRetryAfter("3"), fakeai.Text("ok"))
	c, w := newAnthropic(t, srv, func(c *Config) { c.MaxRetries = 3 })
	resp := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	if resp.Err != nil || resp.Text != "ok" {
		t.Fatalf("%+v", resp)
	}
	if got := w.list(); len(got) != 2 || got[0] != 2*time.Second || got[1] != 3*time.Second {
		t.Errorf("waits %v", got)
	}
}

func TestAnthropicOverloadedAfterRetriesSaysSo(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.HTTPError(529, ""), fakeai.HTTPError(529, ""))
	c, _ := newAnthropic(t, srv, func(c *Config) { c.MaxRetries = 1 })
	err := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{}).Err
	if err == nil || err.Error() != "529 overloaded: fakeai scripted error 529" || len(srv.Requests()) != 2 {
		t.Fatalf("%v after %d requests", err, len(srv.Requests()))
	}
}

func TestAnthropicPromptTooLongIsContextExceeded(t *testing.T) {
	srv := startFake(t, fakeai.WithContextLimit(10))
	c, _ := newAnthropic(t, srv, nil)
	resp := c.Stream(context.Background(), Request{Messages: userMsg(strings.Repeat("long ", 50))}, Handler{})
	if !ContextExceeded(resp.Err) || !strings.Contains(resp.Err.Error(), "prompt is too long") {
		t.Fatalf("err %v", resp.Err)
	}
}

func TestAnthropicMidStreamErrorNeverYieldsCalls(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "toolu_w", Name: "write_file", Arguments: `{"path":"x"}`}).
		WithReasoning("w").WithStreamError(8, "overloaded_error"))
	c, _ := newAnthropic(t, srv, nil)
	resp := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	if resp.Status != StatusProviderError || len(resp.ToolCalls) != 0 || !strings.Contains(resp.Err.Error(), "Overloaded") {
		t.Fatalf("%+v", resp)
	}
	if strings.Contains(string(resp.Raw), "tool_use") {
		t.Errorf("the cut call is in the raw turn: %s", resp.Raw)
	}
}

func TestAnthropicKeyNeverInErrors(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.HTTPError(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key `+testKey+`"}}`))
	c, _ := newAnthropic(t, srv, nil)
	err := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{}).Err
	if err == nil || strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "401") {
		t.Fatalf("err %v", err)
	}
}

func TestAnthropicPortableTurnsAndBreakpoints(t *testing.T) {
	o := Origin{Provider: "claude", Kind: KindAnthropic, Model: "m"}
	msgs := []Message{
		{Role: RoleUser, Text: "one"},
		{Role: RoleAssistant, Text: "hm", ToolCalls: []ToolCall{{ID: "functions.ls:0", Name: "ls", Arguments: `{}`}},
			Raw: json.RawMessage(`{"role":"assistant","content":"hm","reasoning_content":"x"}`), Origin: Origin{Provider: "kimi", Kind: KindOpenAI, Model: "k"}},
		{Role: RoleTool, CallID: "functions.ls:0", Text: "a", IsError: true},
		{Role: RoleUser, Text: "two"},
		{Role: RoleUser, Text: "three"},
	}
	body, err := anthropicBody("m", Request{Messages: msgs}, o, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := `"messages":[{"role":"user","content":[{"type":"text","text":"one"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"hm"},{"type":"tool_use","id":"functions_ls_0","name":"ls","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"functions_ls_0","content":"a","is_error":true}]},` +
		`{"role":"user","content":[{"type":"text","text":"two"` + CacheMarker + `}]},` +
		`{"role":"user","content":[{"type":"text","text":"three"` + CacheMarker + `}]}]}`
	if !strings.HasSuffix(string(body.Bytes()), want) {
		t.Errorf("body\n%s\nwant suffix\n%s", body.Bytes(), want)
	}
}

func TestAnthropicListModels(t *testing.T) {
	srv := startFake(t, fakeai.WithAPIKey(testKey))
	c, _ := newAnthropic(t, srv, nil)
	ids, err := c.ListModels(context.Background())
	if err != nil || len(ids) != 1 || ids[0] != "fake-model" {
		t.Fatalf("%v %v", ids, err)
	}
	if r := srv.Requests()[0]; r.Path != "/v1/models" || r.Header.Get("x-api-key") != testKey || r.Header.Get("Authorization") != "" {
		t.Errorf("%s %v", r.Path, r.Header)
	}
}

// The environment's ANTHROPIC_* variables never reach a request: the key is the configured one.
func TestAnthropicIgnoresTheEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "env-key-leak")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "env-token-leak")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	srv := startFake(t)
	c, _ := newAnthropic(t, srv, nil)
	if err := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{}).Err; err != nil {
		t.Fatal(err)
	}
	for k, v := range srv.Requests()[0].Header {
		if strings.Contains(strings.Join(v, " "), "leak") || strings.EqualFold(k, "Authorization") {
			t.Errorf("header %s: %v", k, v)
		}
	}
}
