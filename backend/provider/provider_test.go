package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

const testKey = "sk-test-secret-4242"

func startFake(t testing.TB, opts ...fakeai.Option) *fakeai.Server {
	t.Helper()
	s, err := fakeai.Start(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// waits records the retry waits a client asked for instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) list() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

func newClient(t testing.TB, baseURL string, mod func(*Config)) (*Client, *waits) {
	t.Helper()
	cfg := Config{BaseURL: baseURL, APIKey: testKey, Model: "fake-model",
		RequestTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second, BackoffBase: time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	c := New(cfg)
	w := &waits{}
	c.sleep = func(ctx context.Context, d time.Duration) error {
		w.mu.Lock()
		w.d = append(w.d, d)
		w.mu.Unlock()
		return ctx.Err()
	}
	return c, w
}

func userMsg(s string) []Message {
	return []Message{{Role: RoleUser, Text: s}}
}

func wantKind(t *testing.T, err error, kind Kind) *Error {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T), want *Error of kind %s", err, err, kind)
	}
	if pe.Kind != kind || !errors.As(fmt.Errorf("wrapped: %w", err), &pe) {
		t.Fatalf("kind %s (%v), want %s", pe.Kind, err, kind)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Fatalf("error shows the API key: %v", err)
	}
	return pe
}

func TestStreamTextReasoningAndUsage(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Text("Hello brave new world").WithReasoning("let me think").WithUsage(120, 9, 100))
	c, _ := newClient(t, srv.URL(), nil)
	var text, reasoning []string
	resp := c.Stream(context.Background(), Request{Messages: userMsg("hi")}, Handler{
		OnText:      func(d string) { text = append(text, d) },
		OnReasoning: func(d string) { reasoning = append(reasoning, d) },
	})
	err := resp.Err
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello brave new world" || strings.Join(text, "") != resp.Text || len(text) < 3 {
		t.Fatalf("text %q, deltas %q", resp.Text, text)
	}
	if resp.Reasoning != "let me think" || strings.Join(reasoning, "") != resp.Reasoning {
		t.Fatalf("reasoning %q, deltas %q", resp.Reasoning, reasoning)
	}
	if resp.Status != StatusOK || resp.FinishReason != "stop" || resp.Err != nil || len(resp.ToolCalls) != 0 {
		t.Fatalf("resp %+v", resp)
	}
	if resp.Usage != (Usage{InputTokens: 120, OutputTokens: 9, CacheReadTokens: 100}) {
		t.Fatalf("usage %+v", resp.Usage)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer "+testKey {
		t.Fatalf("requests %+v", reqs)
	}
	var body struct {
		Model         string
		Stream        bool
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "fake-model" || !body.Stream || !body.StreamOptions.IncludeUsage {
		t.Fatalf("body %s", reqs[0].Body)
	}
}

func TestMessagesAndToolsSentByteForByte(t *testing.T) {
	srv := startFake(t)
	// The assistant turn was made by this provider and model: its raw bytes go back as they are.
	raw := json.RawMessage(`{"role":"assistant","content":null, "reasoning_content":"hm","tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{\"p\": 1}"}}]}`)
	in := []Message{
		{Role: RoleSystem, Text: "Use <tools> & be élégant"},
		{Role: RoleUser, Text: "spaced   out"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "ls", Arguments: `{"p": 1}`}}, Raw: raw,
			Origin: Origin{Kind: KindOpenAI, Model: "other-model"}},
		{Role: RoleTool, CallID: "c1", Text: "a\nb"},
	}
	msgs := []json.RawMessage{
		json.RawMessage(`{"role":"system","content":"Use <tools> & be élégant"}`),
		json.RawMessage(`{"role":"user","content":"spaced   out"}`),
		raw,
		json.RawMessage(`{"role":"tool","tool_call_id":"c1","content":"a\nb"}`),
	}
	params := json.RawMessage(`{"type":"object", "properties":{"path":{"type":"string"}}}`)
	c, _ := newClient(t, srv.URL(), nil)
	r0 := c.Stream(context.Background(), Request{Model: "other-model", Messages: in, MaxTokens: 77,
		Tools: []ToolSpec{{Name: "read_file", Description: "Read <a> file", Parameters: params}}}, Handler{})
	err := r0.Err
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Model    string
		Messages []json.RawMessage
		Tools    []struct {
			Type     string
			Function struct {
				Name, Description string
				Parameters        json.RawMessage
			}
		}
		MaxTokens int `json:"max_tokens"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) != len(msgs) {
		t.Fatalf("%d messages sent", len(body.Messages))
	}
	for i := range msgs {
		if string(body.Messages[i]) != string(msgs[i]) {
			t.Errorf("message %d sent as\n%s\nwant\n%s", i, body.Messages[i], msgs[i])
		}
	}
	if body.Model != "other-model" || body.MaxTokens != 77 || len(body.Tools) != 1 || body.Tools[0].Type != "function" ||
		body.Tools[0].Function.Name != "read_file" || body.Tools[0].Function.Description != "Read <a> file" ||
		string(body.Tools[0].Function.Parameters) != string(params) {
		t.Fatalf("body %s", srv.Requests()[0].Body)
	}
}

func TestInvalidMessageIsNotSent(t *testing.T) {
	srv := startFake(t)
	c, _ := newClient(t, srv.URL(), nil)
	r0 := c.Stream(context.Background(), Request{Messages: []Message{{Role: RoleAssistant, Raw: json.RawMessage(`{"role":`),
		Origin: Origin{Kind: KindOpenAI, Model: "fake-model"}}}}, Handler{})
	err := r0.Err
	if err == nil || len(srv.Requests()) != 0 {
		t.Fatalf("err %v, %d requests", err, len(srv.Requests()))
	}
}

func TestToolTurn(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.TextThenTools("Let me look.",
		fakeai.Call{ID: "call_1", Name: "read_file", Arguments: `{"path":"notes/ünï.txt"}`},
		fakeai.Call{ID: "call_2", Name: "list_dir", Arguments: `{"path":"."}`}))
	c, _ := newClient(t, srv.URL(), nil)
	resp := c.Stream(context.Background(), Request{Messages: userMsg("look")}, Handler{})
	err := resp.Err
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{{"call_1", "read_file", `{"path":"notes/ünï.txt"}`}, {"call_2", "list_dir", `{"path":"."}`}}
	if resp.Status != StatusOK || resp.Text != "Let me look." || !equalCalls(resp.ToolCalls, want) || len(resp.InvalidToolCalls) != 0 {
		t.Fatalf("resp %+v", resp)
	}
}

func equalCalls(a, b []ToolCall) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestUnparseableArgumentsAreNeverToolCalls(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.ToolCalls(
		fakeai.Call{ID: "ok", Name: "list_dir", Arguments: `{}`},
		fakeai.Call{ID: "bad", Name: "write_file", Arguments: `{"path":"a.txt","content":"cut`},
		fakeai.Call{ID: "arr", Name: "write_file", Arguments: `["not","an","object"]`},
	))
	c, _ := newClient(t, srv.URL(), nil)
	resp := c.Stream(context.Background(), Request{Messages: userMsg("go")}, Handler{})
	err := resp.Err
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != StatusOK || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "ok" ||
		len(resp.InvalidToolCalls) != 2 || resp.InvalidToolCalls[0].ID != "bad" || resp.InvalidToolCalls[1].ID != "arr" {
		t.Fatalf("resp %+v", resp)
	}
}

func TestTruncatedAndRefusedTurnsExecuteNothing(t *testing.T) {
	for _, tc := range []struct {
		finish string
		status Status
	}{{"length", StatusTruncated}, {"content_filter", StatusRefused}} {
		t.Run(tc.finish, func(t *testing.T) {
			srv := startFake(t)
			srv.Enqueue(fakeai.TextThenTools("partial", fakeai.Call{ID: "c", Name: "rm", Arguments: `{"p":1}`}).WithFinish(tc.finish))
			c, _ := newClient(t, srv.URL(), nil)
			resp := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
			if resp.Status != tc.status || resp.Err == nil || len(resp.ToolCalls) != 0 || len(resp.InvalidToolCalls) != 1 || resp.Text != "partial" {
				t.Fatalf("resp %+v", resp)
			}
		})
	}
}

func TestRetriesHonourRetryAfterThenSucceed(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.HTTPError(503, ""), fakeai.HTTPError(429, "").WithRetryAfter("2"), fakeai.Text("finally"))
	c, w := newClient(t, srv.URL(), func(c *Config) { c.MaxRetries = 3 })
	var retries []int
	var causes []string
	resp := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{
		OnRetry: func(r Retry) {
			retries = append(retries, r.Attempt)
			causes = append(causes, fmt.Sprintf("%s (%d of %d)", r.Cause(), r.Attempt, r.Of))
			if strings.Contains(r.Err.Error(), testKey) {
				t.Errorf("retry error shows the key: %v", r.Err)
			}
		},
	})
	err := resp.Err
	if err != nil {
		t.Fatal(err)
	}
	got := w.list()
	if resp.Text != "finally" || len(srv.Requests()) != 3 || len(got) != 2 || got[0] > time.Millisecond || got[1] != 2*time.Second {
		t.Fatalf("text %q, %d requests, waits %v", resp.Text, len(srv.Requests()), got)
	}
	if len(retries) != 2 || retries[0] != 1 || retries[1] != 2 {
		t.Fatalf("OnRetry attempts %v", retries)
	}
	if want := []string{"HTTP 503 (1 of 3)", "HTTP 429 (2 of 3)"}; strings.Join(causes, ",") != strings.Join(want, ",") {
		t.Fatalf("retries announced as %q; want %q", causes, want)
	}
}

func TestRetryAfterIsCapped(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.HTTPError(429, `{"error":{"message":"slow down"}}`).WithRetryAfter("3600"), fakeai.Text("ok"))
	c, w := newClient(t, srv.URL(), func(c *Config) { c.MaxBackoff = 5 * time.Second })
	if err := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{}).Err; err != nil {
		t.Fatal(err)
	}
	if got := w.list(); len(got) != 1 || got[0] != 5*time.Second {
		t.Fatalf("waits %v, want [5s]", got)
	}
}

func TestRetriesExhausted(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.HTTPError(502, "Bad Gateway"), fakeai.HTTPError(502, "Bad Gateway"), fakeai.HTTPError(502, "Bad Gateway"))
	c, _ := newClient(t, srv.URL(), func(c *Config) { c.MaxRetries = 2 })
	resp := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	err := resp.Err
	pe := wantKind(t, err, KindHTTPStatus)
	if pe.Status != 502 || err.Error() != "502 bad gateway: Bad Gateway" || len(srv.Requests()) != 3 ||
		resp.Status != StatusProviderError || resp.Err != err {
		t.Fatalf("%v; %d requests; resp %+v", err, len(srv.Requests()), resp)
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.HTTPError(400, `{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`))
	c, _ := newClient(t, srv.URL(), nil)
	r0 := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	err := r0.Err
	pe := wantKind(t, err, KindContextLength)
	if pe.Code != "context_length_exceeded" || !strings.Contains(err.Error(), "maximum context length") || len(srv.Requests()) != 1 {
		t.Fatalf("%v (code %q), %d requests", err, pe.Code, len(srv.Requests()))
	}
}

func TestStreamClosedBeforeOutputIsRetried(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Stall(time.Millisecond), fakeai.Text("second try"))
	c, _ := newClient(t, srv.URL(), nil)
	resp := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	err := resp.Err
	if err != nil || resp.Text != "second try" || len(srv.Requests()) != 2 {
		t.Fatalf("%v, %q, %d requests", err, resp.Text, len(srv.Requests()))
	}
}

func TestIdleTimeoutAfterOutputKeepsPartialTextAndDoesNotRetry(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Text("one two three four").StallAfter(2, 0), fakeai.Text("must not be asked for"))
	c, _ := newClient(t, srv.URL(), func(c *Config) { c.IdleTimeout = 100 * time.Millisecond })
	var deltas []string
	resp := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{OnText: func(d string) { deltas = append(deltas, d) }})
	err := resp.Err
	wantKind(t, err, KindTimeout)
	if !strings.Contains(err.Error(), "idle for 100ms") || resp.Text != "one two" || strings.Join(deltas, "") != "one two" ||
		resp.Status != StatusProviderError || len(srv.Requests()) != 1 {
		t.Fatalf("%v; resp %+v; %d requests", err, resp, len(srv.Requests()))
	}
}

func TestIdleTimeoutBeforeOutput(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Stall(0))
	c, _ := newClient(t, srv.URL(), func(c *Config) { c.IdleTimeout = 50 * time.Millisecond })
	r0 := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	err := r0.Err
	wantKind(t, err, KindTimeout)
}

func TestRequestTimeoutWhenNoHeadersCome(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	done := make(chan struct{})
	go func() { // accept and never answer
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	c, _ := newClient(t, "http://"+ln.Addr().String()+"/v1", func(c *Config) { c.RequestTimeout = 100 * time.Millisecond })
	err = c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{}).Err
	wantKind(t, err, KindTimeout)
	if !strings.Contains(err.Error(), "no answer from http://"+ln.Addr().String()+"/v1 within 100ms") {
		t.Fatalf("message %q", err)
	}
	_, err = c.ListModels(context.Background())
	wantKind(t, err, KindTimeout)
}

func TestCancelWhileStreaming(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Text("a b c").StallAfter(1, 0))
	c, _ := newClient(t, srv.URL(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	resp := c.Stream(ctx, Request{Messages: userMsg("x")}, Handler{OnText: func(string) { cancel() }})
	err := resp.Err
	wantKind(t, err, KindCancelled)
	if !errors.Is(err, context.Canceled) || resp.Text != "a" {
		t.Fatalf("%v; text %q", err, resp.Text)
	}
}

func TestUnauthorized(t *testing.T) {
	srv := startFake(t, fakeai.WithAPIKey("the-right-key"))
	c, _ := newClient(t, srv.URL(), nil)
	r0 := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	err := r0.Err
	wantKind(t, err, KindUnauthorized)
	if err.Error() != "401 unauthorized: Incorrect API key provided." || len(srv.Requests()) != 1 {
		t.Fatalf("%q, %d requests", err, len(srv.Requests()))
	}
	_, err = c.ListModels(context.Background())
	wantKind(t, err, KindUnauthorized)
}

func TestKeyEchoedByServerIsRedacted(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.HTTPError(401, `{"error":{"message":"Incorrect API key provided: `+testKey+`"}}`))
	c, _ := newClient(t, srv.URL(), nil)
	r0 := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	err := r0.Err
	pe := wantKind(t, err, KindUnauthorized) // also checks the key is absent
	if !strings.Contains(err.Error(), "[redacted]") || strings.Contains(pe.Message, testKey) {
		t.Fatalf("%q", err)
	}
}

func TestHTMLAnswers(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.HTML(200), fakeai.HTML(404))
	c, _ := newClient(t, srv.URL(), nil)
	r0 := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	err := r0.Err
	wantKind(t, err, KindNotOpenAI)
	if want := "the server at " + srv.URL() + " did not answer like an OpenAI-compatible API (got text/html)"; err.Error() != want {
		t.Fatalf("%q\nwant %q", err, want)
	}
	err = c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{}).Err
	wantKind(t, err, KindNotFound)
	if !strings.Contains(err.Error(), "check the base URL") {
		t.Fatalf("%q", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	c, w := newClient(t, url, nil)
	err = c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{}).Err
	wantKind(t, err, KindConnRefused)
	if err.Error() != "connection refused at "+url || len(w.list()) != DefaultMaxRetries {
		t.Fatalf("%q; waits %v", err, w.list())
	}
	_, err = c.ListModels(context.Background())
	wantKind(t, err, KindConnRefused)
}

func TestListModels(t *testing.T) {
	srv := startFake(t, fakeai.WithAPIKey(testKey))
	c, _ := newClient(t, srv.URL()+"/", nil)
	ids, err := c.ListModels(context.Background())
	if err != nil || len(ids) != 1 || ids[0] != "fake-model" {
		t.Fatalf("%v %v", ids, err)
	}
	if r := srv.Requests()[0]; r.Method != "GET" || r.Path != "/v1/models" {
		t.Fatalf("request %s %s", r.Method, r.Path)
	}
}

func TestListModelsOnAWebPage(t *testing.T) {
	// A web server that is not an API (a router's admin page, a wrong port).
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>Router</title>"))
	}))
	defer web.Close()
	c, _ := newClient(t, web.URL+"/v1", nil)
	_, err := c.ListModels(context.Background())
	wantKind(t, err, KindNotOpenAI)
	if want := "the server at " + web.URL + "/v1 did not answer like an OpenAI-compatible API (got text/html)"; err.Error() != want {
		t.Fatalf("%q\nwant %q", err, want)
	}
}

// A server that ignores "stream": true, and one that mislabels its stream:
// both still give a usable turn.
func TestNonStreamedAndMislabelledAnswers(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 2 { // the second request gets a whole JSON answer
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Whole answer.","tool_calls":[{"id":"c9","type":"function","function":{"name":"ls","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}`))
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte(sse(`{"choices":[{"index":0,"delta":{"content":"Plain."},"finish_reason":"stop"}]}`, "[DONE]")))
	}))
	defer srv.Close()
	c, _ := newClient(t, srv.URL+"/v1", nil)
	var got string
	resp := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{OnText: func(d string) { got += d }})
	err := resp.Err
	if err != nil || resp.Text != "Plain." || got != "Plain." {
		t.Fatalf("mislabelled stream: %v %+v", err, resp)
	}
	resp = c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{OnText: func(d string) { got += d }})
	err = resp.Err
	if err != nil || resp.Text != "Whole answer." || got != "Plain.Whole answer." || resp.Usage.OutputTokens != 4 ||
		!equalCalls(resp.ToolCalls, []ToolCall{{"c9", "ls", "{}"}}) {
		t.Fatalf("non-streamed answer: %v %+v", err, resp)
	}
}

func TestCallerDeadlineIsATimeout(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Stall(0))
	c, _ := newClient(t, srv.URL(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	r0 := c.Stream(ctx, Request{Messages: userMsg("x")}, Handler{})
	err := r0.Err
	wantKind(t, err, KindTimeout)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v does not wrap the deadline", err)
	}
}
