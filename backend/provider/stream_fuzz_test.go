package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// bodyTransport answers every request with one fixed event stream, without a socket: the
// fuzzers feed a server's bytes to the stream readers thousands of times a second.
type bodyTransport []byte

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Request: r,
		Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(b))}, nil
}

// fuzzConfig is a client of kind that reads body as its one answer and never retries.
func fuzzConfig(kind string, body []byte) Config {
	return Config{Name: "fuzz", Kind: kind, BaseURL: "http://fuzz.invalid/v1", APIKey: "sk-fuzz-key", Model: "m",
		MaxRetries: -1, HTTPClient: &http.Client{Transport: bodyTransport(body)}}
}

// streamFuzzed streams body through the client of kind and checks what the reader promises
// whatever a server sends: every delta shown is in the turn and nothing is in the turn that was
// not shown; an error is never silent (a turn that did not end ok says why) and never comes
// with calls to run; the calls to run are complete; the raw turn is JSON; the key is in no error.
func streamFuzzed(t *testing.T, kind string, body []byte) Response {
	m, err := Open(fuzzConfig(kind, body))
	if err != nil {
		t.Fatal(err)
	}
	var text, reasoning strings.Builder
	r := m.Stream(context.Background(), Request{Messages: userMsg("x")},
		Handler{OnText: func(d string) { text.WriteString(d) }, OnReasoning: func(d string) { reasoning.WriteString(d) }})
	if text.String() != r.Text || reasoning.String() != r.Reasoning {
		t.Fatalf("deltas shown %q / %q, turn kept %q / %q", text.String(), reasoning.String(), r.Text, r.Reasoning)
	}
	switch r.Status {
	case StatusOK, StatusPaused:
		if r.Err != nil {
			t.Fatalf("status %s with an error: %v", r.Status, r.Err)
		}
	case StatusTruncated, StatusRefused, StatusContextExceeded, StatusProviderError:
		if r.Err == nil {
			t.Fatalf("status %s without saying why", r.Status)
		}
		if len(r.ToolCalls) != 0 {
			t.Fatalf("status %s (%v) with calls to run: %+v", r.Status, r.Err, r.ToolCalls)
		}
	default:
		t.Fatalf("unknown status %q", r.Status)
	}
	ids := map[string]bool{}
	for _, c := range r.ToolCalls {
		if c.Name == "" || c.ID == "" || !isJSONObject(c.Arguments) || ids[c.ID] {
			t.Fatalf("a call to run that is not complete or not unique: %+v of %+v", c, r.ToolCalls)
		}
		ids[c.ID] = true
	}
	if r.Raw != nil && !json.Valid(r.Raw) {
		t.Fatalf("raw turn is not JSON: %q", r.Raw)
	}
	if r.Err != nil && strings.Contains(r.Err.Error(), "sk-fuzz-key") {
		t.Fatalf("the key is in the error: %v", r.Err)
	}
	if r.Origin.Kind == "" {
		t.Fatalf("no origin: %+v", r)
	}
	return r
}

// FuzzOpenAIStream feeds arbitrary bytes to the Chat Completions stream reader as a server's
// text/event-stream answer.
func FuzzOpenAIStream(f *testing.F) {
	for _, s := range shapes {
		f.Add([]byte(s.body))
	}
	for _, b := range fakeBodies(f, "/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`) {
		f.Add(b)
	}
	f.Add([]byte(sse(`{"choices":[{"index":0,"delta":{"content":"partial"}}]}`))) // cut before a finish
	f.Add([]byte(sse(`{"error":{"message":"upstream overloaded","code":"overloaded"}}`)))
	f.Fuzz(func(t *testing.T, body []byte) {
		streamFuzzed(t, KindOpenAI, body)
	})
}

// FuzzAnthropicStream feeds arbitrary bytes to the Messages API stream reader.
func FuzzAnthropicStream(f *testing.F) {
	for _, b := range fakeBodies(f, "/messages", `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"x"}]}`) {
		f.Add(b)
	}
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"cut\"}}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		streamFuzzed(t, KindAnthropic, body)
	})
}

// fakeBodies are the streams the scripted fake server sends at path for a text, a thinking
// turn with calls, a length cut and a mid-stream error: real bytes of the wire as seeds.
func fakeBodies(f *testing.F, path, request string) [][]byte {
	srv, err := fakeai.Start()
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	replies := []fakeai.Reply{
		fakeai.Text("Hello, world."),
		fakeai.TextThenTools("Reading.", fakeai.Call{ID: "call_1", Name: "read_file", Arguments: `{"path":"ä.txt"}`},
			fakeai.Call{ID: "call_2", Name: "shell", Arguments: `{"cmd":"ls"}`}).WithReasoning("Think first."),
		fakeai.Text("too long").WithFinish("length"),
		fakeai.ToolCalls(fakeai.Call{ID: "call_w", Name: "write_file", Arguments: `{"path":"x"}`}).WithStreamError(4, "overloaded_error"),
	}
	var out [][]byte
	for _, r := range replies {
		srv.Enqueue(r)
		req, err := http.NewRequest(http.MethodPost, srv.URL()+path, strings.NewReader(request))
		if err != nil {
			f.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("anthropic-version", anthropicVersion)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			f.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			f.Fatalf("fake server %s: %d %v %s", path, res.StatusCode, err, b)
		}
		out = append(out, b)
	}
	return out
}
