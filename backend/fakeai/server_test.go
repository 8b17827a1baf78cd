package fakeai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func start(t *testing.T, opts ...Option) *Server {
	t.Helper()
	s, err := Start(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

const chatBody = `{"model":"m1","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi there"}]}`

func post(t *testing.T, ctx context.Context, url, body string, hdr ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseData returns the data payloads of an SSE body, in order.
func sseData(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

type testChunk struct {
	Choices []struct {
		Delta struct {
			Role             *string `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent string  `json:"reasoning_content"`
			ToolCalls        []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		Details          struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

func decodeChunks(t *testing.T, data []string) []testChunk {
	t.Helper()
	if len(data) == 0 || data[len(data)-1] != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %q", data)
	}
	out := make([]testChunk, len(data)-1)
	for i, d := range data[:len(data)-1] {
		if err := json.Unmarshal([]byte(d), &out[i]); err != nil {
			t.Fatalf("chunk %d %q: %v", i, d, err)
		}
	}
	return out
}

func TestTextStreamsDeltasFinishAndUsage(t *testing.T) {
	s := start(t)
	s.Enqueue(Text("Hello brave new world").WithReasoning("think first").WithUsage(11, 7, 3))
	resp := post(t, context.Background(), s.URL()+"/chat/completions", chatBody, "Authorization", "Bearer sk-test")
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	chunks := decodeChunks(t, sseData(t, resp.Body))

	first := chunks[0].Choices[0].Delta
	if first.Role == nil || *first.Role != "assistant" || first.Content == nil || *first.Content != "" {
		t.Fatalf("first chunk is not role-only: %+v", first)
	}
	var text, reasoning strings.Builder
	textDeltas := 0
	for _, c := range chunks[1 : len(chunks)-2] {
		d := c.Choices[0].Delta
		reasoning.WriteString(d.ReasoningContent)
		if d.Content != nil {
			text.WriteString(*d.Content)
			textDeltas++
		}
	}
	if text.String() != "Hello brave new world" || textDeltas != 4 {
		t.Fatalf("text %q in %d deltas", text.String(), textDeltas)
	}
	if reasoning.String() != "think first" {
		t.Fatalf("reasoning %q", reasoning.String())
	}
	fin := chunks[len(chunks)-2]
	if fin.Choices[0].FinishReason == nil || *fin.Choices[0].FinishReason != "stop" {
		t.Fatalf("finish chunk %+v", fin)
	}
	u := chunks[len(chunks)-1]
	if len(u.Choices) != 0 || u.Usage == nil || u.Usage.PromptTokens != 11 || u.Usage.CompletionTokens != 7 || u.Usage.Details.CachedTokens != 3 {
		t.Fatalf("usage chunk %+v", u)
	}

	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Method != "POST" || reqs[0].Path != "/v1/chat/completions" ||
		reqs[0].Header.Get("Authorization") != "Bearer sk-test" || string(reqs[0].Body) != chatBody {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestNoUsageChunkUnlessAsked(t *testing.T) {
	s := start(t)
	s.Enqueue(Text("a b"))
	resp := post(t, context.Background(), s.URL()+"/chat/completions", `{"stream":true,"messages":[]}`)
	for _, c := range decodeChunks(t, sseData(t, resp.Body)) {
		if c.Usage != nil || len(c.Choices) == 0 {
			t.Fatalf("unexpected usage chunk %+v", c)
		}
	}
}

func TestToolCallsSplitArguments(t *testing.T) {
	s := start(t)
	args := `{"path":"docs/ünïcode.txt","limit":100}`
	s.Enqueue(TextThenTools("Reading.", Call{ID: "call_a", Name: "read_file", Arguments: args}, Call{Name: "list", Arguments: `{}`}))
	resp := post(t, context.Background(), s.URL()+"/chat/completions", chatBody)
	chunks := decodeChunks(t, sseData(t, resp.Body))
	got := map[int]*struct{ id, name, args string }{}
	argDeltas := 0
	var text string
	for _, c := range chunks {
		if len(c.Choices) == 0 {
			continue
		}
		if c.Choices[0].Delta.Content != nil {
			text += *c.Choices[0].Delta.Content
		}
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			g := got[tc.Index]
			if g == nil {
				g = &struct{ id, name, args string }{}
				got[tc.Index] = g
			}
			if tc.ID != "" {
				g.id = tc.ID
			}
			g.name += tc.Function.Name
			g.args += tc.Function.Arguments
			if tc.Function.Arguments != "" {
				argDeltas++
			}
		}
	}
	if text != "Reading." || len(got) != 2 || got[0].id != "call_a" || got[0].name != "read_file" || got[0].args != args ||
		got[1].id == "" || got[1].name != "list" || got[1].args != "{}" {
		t.Fatalf("text %q calls %+v %+v", text, got[0], got[1])
	}
	if argDeltas < 4 {
		t.Fatalf("arguments came in %d deltas, want several", argDeltas)
	}
	if f := chunks[len(chunks)-2].Choices[0].FinishReason; f == nil || *f != "tool_calls" {
		t.Fatalf("finish %v", f)
	}
}

func TestEchoWhenQueueEmpty(t *testing.T) {
	s := start(t)
	body := `{"stream":true,"messages":[{"role":"user","content":"first"},{"role":"assistant","content":"x"},{"role":"user","content":[{"type":"text","text":"second one"}]}]}`
	resp := post(t, context.Background(), s.URL()+"/chat/completions", body)
	var text string
	for _, c := range decodeChunks(t, sseData(t, resp.Body)) {
		if len(c.Choices) > 0 && c.Choices[0].Delta.Content != nil {
			text += *c.Choices[0].Delta.Content
		}
	}
	if text != "You said: second one" {
		t.Fatalf("echo %q", text)
	}
}

func TestNonStreamedCompletion(t *testing.T) {
	s := start(t)
	s.Enqueue(Text("plain answer"))
	resp := post(t, context.Background(), s.URL()+"/chat/completions", `{"messages":[]}`)
	var c struct {
		Object  string
		Choices []struct {
			Message      struct{ Content string }
			FinishReason string `json:"finish_reason"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	if c.Object != "chat.completion" || c.Choices[0].Message.Content != "plain answer" || c.Choices[0].FinishReason != "stop" {
		t.Fatalf("%+v", c)
	}
}

func TestErrorsHTMLAndAPIKey(t *testing.T) {
	s := start(t, WithAPIKey("right"))
	ctx := context.Background()
	url := s.URL() + "/chat/completions"

	resp := post(t, ctx, url, chatBody, "Authorization", "Bearer wrong")
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 401 || !strings.Contains(string(b), `"invalid_api_key"`) {
		t.Fatalf("wrong key: %d %s", resp.StatusCode, b)
	}

	s.Enqueue(HTTPError(429, "").WithRetryAfter("2"), HTTPError(502, "Bad Gateway"), HTML(200))
	resp = post(t, ctx, url, chatBody, "Authorization", "Bearer right")
	b, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || !strings.Contains(string(b), `"error"`) {
		t.Fatalf("429: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	resp = post(t, ctx, url, chatBody, "Authorization", "Bearer right")
	b, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 502 || string(b) != "Bad Gateway" {
		t.Fatalf("502: %d %s", resp.StatusCode, b)
	}
	resp = post(t, ctx, url, chatBody, "Authorization", "Bearer right")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("html: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if n := len(s.Requests()); n != 4 {
		t.Fatalf("recorded %d requests, want 4 (rejected ones too)", n)
	}
}

func TestModels(t *testing.T) {
	s := start(t)
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var l struct {
		Object string
		Data   []struct{ ID, Object string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		t.Fatal(err)
	}
	if l.Object != "list" || len(l.Data) != 1 || l.Data[0].ID != "fake-model" || l.Data[0].Object != "model" {
		t.Fatalf("%+v", l)
	}
}

func TestRawIsByteExact(t *testing.T) {
	s := start(t)
	raw := ": OPENROUTER PROCESSING\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\nevent: error\ndata: {\"error\":{\"message\":\"boom\"}}\n\n"
	s.Enqueue(Raw(raw).WithDelay(time.Millisecond))
	resp := post(t, context.Background(), s.URL()+"/chat/completions", chatBody)
	b, _ := io.ReadAll(resp.Body)
	if string(b) != raw {
		t.Fatalf("raw body\n%q\nwant\n%q", b, raw)
	}
}

func TestStallAfterHoldsConnectionUntilClientLeaves(t *testing.T) {
	s := start(t)
	s.Enqueue(Text("one two three four").StallAfter(2, 0))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := post(t, ctx, s.URL()+"/chat/completions", chatBody)
	rd := bufio.NewReader(resp.Body)
	var got []string
	for len(got) < 3 { // role chunk + 2 deltas
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended early after %q: %v", got, err)
		}
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			got = append(got, d)
		}
	}
	if !strings.Contains(got[2], `"content":" two"`) {
		t.Fatalf("second delta %s", got[2])
	}
	// Nothing more arrives: the next read only returns once we give up.
	readDone := make(chan error, 1)
	go func() {
		_, err := rd.ReadString('\n')
		for err == nil {
			_, err = rd.ReadString('\n')
		}
		readDone <- err
	}()
	select {
	case err := <-readDone:
		t.Fatalf("stream went on or ended while stalled: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	if err := <-readDone; err == nil {
		t.Fatal("read succeeded after cancel")
	}
}

func TestCloseEndsStalledStreams(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	s.Enqueue(Stall(0))
	resp := post(t, context.Background(), s.URL()+"/chat/completions", chatBody)
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		close(done)
	}()
	s.Close() // must not hang on the stalled handler
	<-done
}

func TestControlAPI(t *testing.T) {
	s := start(t)
	base := strings.TrimSuffix(s.URL(), "/v1")
	ctx := context.Background()
	resp := post(t, ctx, base+"/_fake/enqueue", `[{"kind":"text","text":"from control","usage":{"prompt_tokens":5,"completion_tokens":2}},{"kind":"http_error","status":503}]`)
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("enqueue: %d %s", resp.StatusCode, b)
	}
	resp = post(t, ctx, base+"/_fake/enqueue", `[{"kind":"bogus"}]`)
	if resp.StatusCode != 400 {
		t.Fatalf("bad reply accepted: %d", resp.StatusCode)
	}

	resp = post(t, ctx, s.URL()+"/chat/completions", chatBody, "Authorization", "Bearer k")
	var text string
	for _, c := range decodeChunks(t, sseData(t, resp.Body)) {
		if len(c.Choices) > 0 && c.Choices[0].Delta.Content != nil {
			text += *c.Choices[0].Delta.Content
		}
	}
	if text != "from control" {
		t.Fatalf("text %q", text)
	}
	if resp = post(t, ctx, s.URL()+"/chat/completions", chatBody); resp.StatusCode != 503 {
		t.Fatalf("status %d", resp.StatusCode)
	}

	getReqs := func() []Request {
		resp, err := http.Get(base + "/_fake/requests")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var raw []map[string]any
		if err := json.Unmarshal(b, &raw); err != nil || (len(raw) > 0 && raw[0]["body"] != chatBody) {
			t.Fatalf("requests JSON body is not a plain string: %s", b)
		}
		var reqs []Request
		if err := json.Unmarshal(b, &reqs); err != nil {
			t.Fatal(err)
		}
		return reqs
	}
	reqs := getReqs()
	if len(reqs) != 2 || reqs[0].Header.Get("Authorization") != "Bearer k" || !bytes.Equal(reqs[0].Body, []byte(chatBody)) {
		t.Fatalf("requests %+v", reqs)
	}
	if resp = post(t, ctx, base+"/_fake/reset", ""); resp.StatusCode != 204 {
		t.Fatalf("reset %d", resp.StatusCode)
	}
	if reqs := getReqs(); len(reqs) != 0 || s.Pending() != 0 {
		t.Fatalf("after reset: %d requests, %d pending", len(reqs), s.Pending())
	}
}
