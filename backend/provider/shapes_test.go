package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// sse joins events into an SSE body: lines starting with ":" or "event:"
// are written as they are, anything else becomes a data line.
func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		if !strings.HasPrefix(e, ":") && !strings.HasPrefix(e, "event:") {
			e = "data: " + e
		}
		b.WriteString(e)
		b.WriteString("\n\n")
	}
	return b.String()
}

// Streams shaped like real servers' output (from their documentation and
// bug reports), sent byte for byte by the fake server.
var shapes = []struct {
	name string
	body string
	want func(t *testing.T, r Response, err error)
}{
	{"openai parallel calls, role-only first chunk, usage with empty choices", sse(
		`{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`,
		`{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}`,
		`{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"loc"}}]},"logprobs":null,"finish_reason":null}],"usage":null}`,
		`{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ation\": \"Paris\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}`,
		`{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_def","type":"function","function":{"name":"get_time","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}`,
		`{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"tz\":\"CET\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}`,
		`{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}`,
		`{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":80,"completion_tokens":40,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":64,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			calls(t, r, ToolCall{"call_abc", "get_weather", `{"location": "Paris"}`}, ToolCall{"call_def", "get_time", `{"tz":"CET"}`})
			if r.Usage != (Usage{InputTokens: 80, OutputTokens: 40, CacheReadTokens: 64}) {
				t.Fatalf("usage %+v", r.Usage)
			}
		}},
	{"vllm first tool delta without arguments, usage on every chunk", sse(
		`{"id":"chatcmpl-v","object":"chat.completion.chunk","created":1,"model":"qwen","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":50,"total_tokens":50,"completion_tokens":0}}`,
		`{"id":"chatcmpl-v","object":"chat.completion.chunk","created":1,"model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"id":"chatcmpl-tool-7f3a","type":"function","index":0,"function":{"name":"read_file"}}]},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":50,"total_tokens":51,"completion_tokens":1}}`,
		`{"id":"chatcmpl-v","object":"chat.completion.chunk","created":1,"model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\": \""}}]},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":50,"total_tokens":55,"completion_tokens":5}}`,
		`{"id":"chatcmpl-v","object":"chat.completion.chunk","created":1,"model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"a.go\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":50,"total_tokens":58,"completion_tokens":8}}`,
		`{"id":"chatcmpl-v","object":"chat.completion.chunk","created":1,"model":"qwen","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"tool_calls","stop_reason":null}],"usage":{"prompt_tokens":50,"total_tokens":59,"completion_tokens":9}}`,
		`{"id":"chatcmpl-v","object":"chat.completion.chunk","created":1,"model":"qwen","choices":[],"usage":{"prompt_tokens":50,"total_tokens":59,"completion_tokens":9}}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			calls(t, r, ToolCall{"chatcmpl-tool-7f3a", "read_file", `{"path": "a.go"}`})
			if r.Usage != (Usage{InputTokens: 50, OutputTokens: 9}) {
				t.Fatalf("usage %+v, want the last chunk's, not a sum", r.Usage)
			}
		}},
	{"llama.cpp long random id and timings", sse(
		`{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1,"id":"chatcmpl-xyz","model":"gpt-3.5-turbo","system_fingerprint":"b4000","object":"chat.completion.chunk"}`,
		`{"choices":[{"finish_reason":null,"index":0,"delta":{"tool_calls":[{"index":0,"id":"Jx8vQ2mKpR7tLw3nZc9bYh4dFs6gAe1u","type":"function","function":{"name":"shell","arguments":"{\"cmd\":"}}]}}],"created":1,"id":"chatcmpl-xyz","model":"m","object":"chat.completion.chunk"}`,
		`{"choices":[{"finish_reason":null,"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"ls -la\"}"}}]}}],"created":1,"id":"chatcmpl-xyz","model":"m","object":"chat.completion.chunk"}`,
		`{"choices":[{"finish_reason":"tool_calls","index":0,"delta":{}}],"created":1,"id":"chatcmpl-xyz","model":"m","object":"chat.completion.chunk","usage":{"completion_tokens":12,"prompt_tokens":30,"total_tokens":42},"timings":{"prompt_n":30,"prompt_ms":12.5,"predicted_n":12,"predicted_ms":80.1,"predicted_per_second":149.8}}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			calls(t, r, ToolCall{"Jx8vQ2mKpR7tLw3nZc9bYh4dFs6gAe1u", "shell", `{"cmd":"ls -la"}`})
			if r.Usage != (Usage{InputTokens: 30, OutputTokens: 12}) {
				t.Fatalf("usage %+v", r.Usage)
			}
		}},
	{"ollama whole arguments in one delta, finish stop with tool calls", sse(
		`{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1,"model":"llama3.1","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_k3x9mz1a","index":0,"type":"function","function":{"name":"read_file","arguments":"{\"path\":\"go.mod\"}"}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1,"model":"llama3.1","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"stop"}]}`,
		`{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1,"model":"llama3.1","system_fingerprint":"fp_ollama","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":10,"total_tokens":30}}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			calls(t, r, ToolCall{"call_k3x9mz1a", "read_file", `{"path":"go.mod"}`})
			if r.FinishReason != "stop" {
				t.Fatalf("finish %q", r.FinishReason)
			}
		}},
	{"mistral 9-character ids, no index, two calls in one delta", sse(
		`{"id":"m1","object":"chat.completion.chunk","created":1,"model":"mistral-large","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
		`{"id":"m1","object":"chat.completion.chunk","created":1,"model":"mistral-large","choices":[{"index":0,"delta":{"content":"","tool_calls":[{"id":"D681PevKs","function":{"name":"read_file","arguments":"{\"path\": \"a\"}"}},{"id":"kT9aB3xYz","function":{"name":"read_file","arguments":"{\"path\": \"b\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"total_tokens":30,"completion_tokens":20}}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			calls(t, r, ToolCall{"D681PevKs", "read_file", `{"path": "a"}`}, ToolCall{"kT9aB3xYz", "read_file", `{"path": "b"}`})
		}},
	{"groq 9-character ids, no index, arguments continued without id", sse(
		`{"id":"chatcmpl-g","object":"chat.completion.chunk","created":1,"model":"llama-3.3-70b","choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}],"x_groq":{"id":"req_1"}}`,
		`{"id":"chatcmpl-g","object":"chat.completion.chunk","created":1,"model":"llama-3.3-70b","choices":[{"index":0,"delta":{"tool_calls":[{"id":"a1b2c3d4e","type":"function","function":{"name":"list_dir","arguments":""}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-g","object":"chat.completion.chunk","created":1,"model":"llama-3.3-70b","choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"{\"path\":"}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-g","object":"chat.completion.chunk","created":1,"model":"llama-3.3-70b","choices":[{"index":0,"delta":{"tool_calls":[{"id":"a1b2c3d4e","function":{"arguments":"\".\"}"}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-g","object":"chat.completion.chunk","created":1,"model":"llama-3.3-70b","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"x_groq":{"id":"req_1","usage":{"prompt_tokens":9,"completion_tokens":3}}}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			calls(t, r, ToolCall{"a1b2c3d4e", "list_dir", `{"path":"."}`})
		}},
	{"openrouter comments, reasoning field, error object after finish length", sse(
		`: OPENROUTER PROCESSING`,
		`: OPENROUTER PROCESSING`,
		`{"id":"gen-1","provider":"Together","model":"x","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Thinking..."},"finish_reason":null,"native_finish_reason":null}]}`,
		`{"id":"gen-1","provider":"Together","model":"x","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":{"role":"assistant","content":"The answer is"},"finish_reason":null,"native_finish_reason":null}]}`,
		`{"id":"gen-1","provider":"Together","model":"x","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":{"role":"assistant","content":" cut"},"finish_reason":"length","native_finish_reason":"length"}]}`,
		`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"x","provider":"Together","error":{"code":502,"message":"Provider returned error","metadata":{"raw":"upstream"}},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			if r.Status != StatusTruncated || r.Text != "The answer is cut" || r.Reasoning != "Thinking..." ||
				r.Err == nil || !strings.Contains(r.Err.Error(), "Provider returned error") {
				t.Fatalf("resp %+v", r)
			}
		}},
	{"azure first chunk with empty choices, content_filter", sse(
		`{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}]}`,
		`{"choices":[{"content_filter_results":{},"delta":{"content":"","refusal":null,"role":"assistant"},"finish_reason":null,"index":0,"logprobs":null}],"created":1,"id":"chatcmpl-az","model":"gpt-4o","object":"chat.completion.chunk","system_fingerprint":"fp"}`,
		`{"choices":[{"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}},"delta":{"content":"Sure, here"},"finish_reason":null,"index":0,"logprobs":null}],"created":1,"id":"chatcmpl-az","model":"gpt-4o","object":"chat.completion.chunk","system_fingerprint":"fp"}`,
		`{"choices":[{"content_filter_results":{"violence":{"filtered":true,"severity":"high"}},"delta":{},"finish_reason":"content_filter","index":0,"logprobs":null}],"created":1,"id":"chatcmpl-az","model":"gpt-4o","object":"chat.completion.chunk","system_fingerprint":"fp"}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			if r.Status != StatusRefused || r.Text != "Sure, here" || r.Err == nil || len(r.ToolCalls) != 0 {
				t.Fatalf("resp %+v", r)
			}
		}},
	{"proxy whose tool index starts at 1", sse(
		`{"choices":[{"index":0,"delta":{"role":"assistant"}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_1","type":"function","function":{"name":"a","arguments":"{\"x\""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":1}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"id":"call_2","type":"function","function":{"name":"b","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			calls(t, r, ToolCall{"call_1", "a", `{"x":1}`}, ToolCall{"call_2", "b", `{}`})
		}},
	{"gateway error in the middle of a tool call's arguments", sse(
		`{"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_x","type":"function","function":{"name":"write_file","arguments":"{\"path\":\"a.txt\",\"con"}}]}}]}`,
		`{"error":{"message":"upstream request timeout","type":"gateway_error","code":504}}`),
		func(t *testing.T, r Response, err error) {
			e := wantKind(t, err, KindStream)
			if e.Message != "upstream request timeout" || e.Code != "504" || r.Status != StatusProviderError ||
				len(r.ToolCalls) != 0 || len(r.InvalidToolCalls) != 1 || r.InvalidToolCalls[0].ID != "call_x" {
				t.Fatalf("%v; resp %+v", err, r)
			}
		}},
	{"event: error without an error field", sse(
		`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
		"event: error\ndata: {\"message\":\"model overloaded\",\"type\":\"overloaded_error\"}"),
		func(t *testing.T, r Response, err error) {
			e := wantKind(t, err, KindStream)
			if e.Message != "model overloaded" {
				t.Fatalf("%v", err)
			}
		}},
	{"stream that stops without a finish after some text", sse(
		`{"choices":[{"index":0,"delta":{"role":"assistant","content":"Half an ans"}}]}`),
		func(t *testing.T, r Response, err error) {
			wantKind(t, err, KindIncomplete)
			if r.Text != "Half an ans" || r.Status != StatusProviderError {
				t.Fatalf("resp %+v", r)
			}
		}},
	{"last event without a blank line after it", `data: {"choices":[{"index":0,"delta":{"content":"Tail."},"finish_reason":"stop"}]}` + "\n",
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			if r.Text != "Tail." || r.Status != StatusOK {
				t.Fatalf("resp %+v", r)
			}
		}},
	{"escapes in text deltas", sse(
		`{"choices":[{"index":0,"delta":{"content":"Line\nnext \u00e9 \"q\" \ud83d\ude00"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":" plain ü"},"finish_reason":"stop"}]}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			if r.Text != "Line\nnext é \"q\" 😀 plain ü" {
				t.Fatalf("text %q", r.Text)
			}
		}},
	{"[DONE] without a finish reason ends the turn", sse(
		`{"choices":[{"index":0,"delta":{"content":"Done."}}]}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			if r.Text != "Done." || r.Status != StatusOK {
				t.Fatalf("resp %+v", r)
			}
		}},
	{"empty id and name never overwrite", sse(
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_keep","type":"function","function":{"name":"read_file","arguments":""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"","type":"function","function":{"name":"","arguments":"{\"path\":"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"","function":{"name":"","arguments":"\"x\"}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			calls(t, r, ToolCall{"call_keep", "read_file", `{"path":"x"}`})
		}},
	{"ids made up where none or a duplicate is sent", sse(
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"a","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"name":"b","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"id":"call_0","function":{"name":"c","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":3,"id":"call_0","function":{"name":"d","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			seen := map[string]bool{}
			for _, c := range r.ToolCalls {
				if c.ID == "" || seen[c.ID] {
					t.Fatalf("ids not unique: %+v", r.ToolCalls)
				}
				seen[c.ID] = true
			}
			if len(r.ToolCalls) != 4 || r.ToolCalls[2].ID != "call_0" {
				t.Fatalf("calls %+v", r.ToolCalls)
			}
		}},
	{"one index reused for parallel calls with different ids", sse(
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"g1","function":{"name":"a","arguments":"{\"n\":1}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"g2","function":{"name":"a","arguments":"{\"n\":2}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			calls(t, r, ToolCall{"g1", "a", `{"n":1}`}, ToolCall{"g2", "a", `{"n":2}`})
		}},
	{"deepseek reasoning_content and cache-hit usage", sse(
		`{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"First, "}}]}`,
		`{"choices":[{"index":0,"delta":{"content":null,"reasoning_content":"think."}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"Answer.","reasoning_content":null}}]}`,
		`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":7,"prompt_cache_hit_tokens":96,"prompt_cache_miss_tokens":4}}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			if r.Reasoning != "First, think." || r.Text != "Answer." || r.Usage != (Usage{InputTokens: 100, OutputTokens: 7, CacheReadTokens: 96}) {
				t.Fatalf("resp %+v", r)
			}
		}},
	{"arguments sent as a JSON object", sse(
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"o1","function":{"name":"read_file","arguments":{"path":"x"}}}]},"finish_reason":"tool_calls"}]}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			calls(t, r, ToolCall{"o1", "read_file", `{"path":"x"}`})
		}},
	{"content as an array of parts with thinking", sse(
		`{"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"Hmm."}]}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"Hi!"}]},"finish_reason":"stop"}]}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			if r.Reasoning != "Hmm." || r.Text != "Hi!" {
				t.Fatalf("resp %+v", r)
			}
		}},
	{"refusal", sse(
		`{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":"I can't help with that."}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		`[DONE]`),
		func(t *testing.T, r Response, err error) {
			ok(t, err)
			if r.Status != StatusRefused || r.Err == nil || !strings.Contains(r.Err.Error(), "can't help") {
				t.Fatalf("resp %+v", r)
			}
		}},
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func calls(t *testing.T, r Response, want ...ToolCall) {
	t.Helper()
	if r.Status != StatusOK || !equalCalls(r.ToolCalls, want) || len(r.InvalidToolCalls) != 0 {
		t.Fatalf("status %s calls %+v invalid %+v, want %+v", r.Status, r.ToolCalls, r.InvalidToolCalls, want)
	}
}

func TestServerShapes(t *testing.T) {
	srv := startFake(t)
	c, _ := newClient(t, srv.URL(), nil)
	for _, tc := range shapes {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			srv.Enqueue(fakeai.Raw(tc.body), fakeai.Text("a retry that must not happen"))
			var text strings.Builder
			r := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{OnText: func(d string) { text.WriteString(d) }})
			var err error // a failed stream: Err with status provider_error
			if r.Status == StatusProviderError {
				err = r.Err
			}
			tc.want(t, r, err)
			if text.String() != r.Text {
				t.Fatalf("deltas %q but text %q", text.String(), r.Text)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("%d requests, want 1 (no retry after a stream started)", n)
			}
		})
	}
}
