package provider

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

func TestRawTurnKeepsEveryField(t *testing.T) {
	srv := startFake(t)
	// Gemini's whole calls without an index, with extra_content; a server repeating the id in
	// every fragment; an unknown string field in pieces and an unknown object.
	srv.Enqueue(fakeai.Raw(
		`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"thi","vendor_meta":{"a":1}}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"reasoning":"nking","vendor_meta":{"b":2}}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"id":"g1","type":"function","function":{"name":"ls","arguments":"{}"},"extra_content":{"google":{"thought_signature":"SIG=="}}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c2","type":"function","function":{"name":"cat","arguments":"{\"p\""}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c2","function":{"arguments":":1}"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":8,"cache_write_tokens":2},"completion_tokens_details":{"reasoning_tokens":3}}}` + "\n\n" +
			"data: [DONE]\n\n"))
	c, _ := newClient(t, srv.URL(), func(c *Config) { c.Name = "p" })
	resp := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	if resp.Err != nil {
		t.Fatal(resp.Err)
	}
	want := `{"role":"assistant","content":"","reasoning":"thinking","vendor_meta":{"a":1,"b":2},"tool_calls":[` +
		`{"id":"g1","type":"function","function":{"name":"ls","arguments":"{}"},"extra_content":{"google":{"thought_signature":"SIG=="}}},` +
		`{"id":"c2","type":"function","function":{"name":"cat","arguments":"{\"p\":1}"}}]}`
	if string(resp.Raw) != want {
		t.Errorf("raw\n%s\nwant\n%s", resp.Raw, want)
	}
	if resp.Reasoning != "thinking" || len(resp.ToolCalls) != 2 {
		t.Errorf("%+v", resp)
	}
	if resp.Usage != (Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 8, CacheWriteTokens: 2, ReasoningTokens: 3}) {
		t.Errorf("usage %+v", resp.Usage)
	}
	if resp.Origin != (Origin{Provider: "p", Kind: KindOpenAI, Model: "fake-model"}) {
		t.Errorf("origin %+v", resp.Origin)
	}
	if r := srv.Requests()[0]; r.Header.Get("Content-Length") != strconv.Itoa(len(r.Body)) {
		t.Errorf("sent without its length (chunked?): %v", r.Header)
	}
}

func TestEncodeOpenAISendsRawOnlyToItsOrigin(t *testing.T) {
	raw := json.RawMessage(`{"role":"assistant","content":"","reasoning_content":"r","tool_calls":[{"id":"c","type":"function","function":{"name":"ls","arguments":"{}"}}]}`)
	own := Origin{Provider: "ds", Kind: KindOpenAI, Model: "deepseek-v4-pro"}
	m := []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Name: "ls", Arguments: "{}"}}, Raw: raw, Origin: own}}
	for _, tc := range []struct {
		name string
		to   Origin
		want string
	}{
		{"same origin", own, string(raw)},
		{"another model, whose server wants reasoning_content on every tool-call turn", Origin{Provider: "ds", Kind: KindOpenAI, Model: "deepseek-v4-flash"},
			`{"role":"assistant","content":"","reasoning_content":"","tool_calls":[{"id":"c","type":"function","function":{"name":"ls","arguments":"{}"}}]}`},
		{"another provider", Origin{Provider: "oa", Kind: KindOpenAI, Model: "gpt-5"},
			`{"role":"assistant","content":"","tool_calls":[{"id":"c","type":"function","function":{"name":"ls","arguments":"{}"}}]}`},
		{"gemini 3 gets the documented skip signature", Origin{Provider: "g", Kind: KindOpenAI, Model: "google/gemini-3-pro-preview"},
			`{"role":"assistant","content":"","tool_calls":[{"id":"c","type":"function","function":{"name":"ls","arguments":"{}"},"extra_content":{"google":{"thought_signature":"skip_thought_signature_validator"}}}]}`},
	} {
		got, err := EncodeOpenAI(m, tc.to)
		if err != nil || string(got[0]) != tc.want {
			t.Errorf("%s: %s %v\nwant %s", tc.name, got, err, tc.want)
		}
	}
}

func TestRawOfACutTurnHasNoCalls(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.TextThenTools("sure", fakeai.Call{ID: "w", Name: "write_file", Arguments: `{}`}).WithFinish("length"))
	c, _ := newClient(t, srv.URL(), nil)
	resp := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	if resp.Status != StatusTruncated || strings.Contains(string(resp.Raw), "tool_calls") {
		t.Fatalf("%s %s", resp.Status, resp.Raw)
	}
}

// DeepSeek V4's shape: content null beside reasoning_content, the call's first fragment with
// an empty arguments string, logprobs null, usage with its cache hit and miss counts.
func TestDeepSeekShapeRaw(t *testing.T) {
	srv := startFake(t)
	chunk := func(delta, finish string) string {
		return `data: {"id":"5f1e","object":"chat.completion.chunk","created":1766000000,"model":"deepseek-v4-pro","system_fingerprint":"fp_ds4_prod",` +
			`"choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]}` + "\n\n"
	}
	srv.Enqueue(fakeai.Raw(chunk(`{"role":"assistant","content":null,"reasoning_content":""}`, "null") +
		chunk(`{"content":null,"reasoning_content":"Need the file."}`, "null") +
		chunk(`{"tool_calls":[{"index":0,"id":"call_00_Xk2","type":"function","function":{"name":"read_file","arguments":""}}]}`, "null") +
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":\"a\"}"}}]}`, "null") +
		chunk(`{"content":"","reasoning_content":null}`, `"tool_calls"`) +
		`data: {"id":"5f1e","object":"chat.completion.chunk","created":1766000000,"model":"deepseek-v4-pro","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150,"prompt_tokens_details":{"cached_tokens":64},"completion_tokens_details":{"reasoning_tokens":12},"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":56}}` + "\n\n" +
		"data: [DONE]\n\n"))
	c, _ := newClient(t, srv.URL(), nil)
	resp := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	want := `{"role":"assistant","content":"","reasoning_content":"Need the file.","tool_calls":[{"id":"call_00_Xk2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]}`
	if resp.Err != nil || string(resp.Raw) != want {
		t.Fatalf("%v\n%s\nwant\n%s", resp.Err, resp.Raw, want)
	}
	if resp.Usage != (Usage{InputTokens: 120, OutputTokens: 30, CacheReadTokens: 64, ReasoningTokens: 12}) {
		t.Errorf("usage %+v", resp.Usage)
	}
}
