package provider

import (
	"context"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// Real answers servers give to a request longer than the model's window, as a person would
// meet them; each must be classified as context_length_exceeded so the runner compacts.
func TestContextLengthErrorsAreClassified(t *testing.T) {
	cases := []struct {
		server string
		status int
		body   string
		want   bool
	}{
		{"openai", 400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, true},
		{"openai code only", 400, `{"error":{"message":"Input too large.","type":"invalid_request_error","code":"context_length_exceeded"}}`, true},
		{"vllm", 400, `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`, true},
		{"vllm decoder prompt", 400, `{"object":"error","message":"The decoder prompt (length 5000) is longer than the maximum model length of 4096. Make sure that max_model_len is no smaller than the number of text tokens.","type":"BadRequestError","code":400}`, true},
		{"llama.cpp", 400, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5210,"n_ctx":4096}}`, true},
		{"llama.cpp older", 400, `{"error":{"code":400,"message":"request (5210 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"invalid_request_error"}}`, true},
		{"ollama", 400, `{"error":{"message":"the input length exceeds the context length","type":"api_error","param":null,"code":null}}`, true},
		{"ollama runner", 500, `{"error":"prompt too long; exceeded max context length by 1204 tokens"}`, true},
		{"openrouter", 400, `{"error":{"message":"This endpoint's maximum context length is 163840 tokens. However, you requested about 201532 tokens (201532 of text input). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.","code":400,"metadata":{"provider_name":null}}}`, true},
		{"anthropic gateway", 400, `{"error":{"message":"prompt is too long: 210443 tokens > 200000 maximum","type":"invalid_request_error"}}`, true},
		{"other 400", 400, `{"error":{"message":"Invalid value for 'temperature'","type":"invalid_request_error","code":"invalid_value"}}`, false},
		{"unprocessable", 422, `{"error":{"message":"maximum context length unknown for this model"}}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.server, func(t *testing.T) {
			srv := startFake(t)
			srv.Enqueue(fakeai.HTTPError(tc.status, tc.body))
			c, _ := newClient(t, srv.URL(), func(cfg *Config) { cfg.MaxRetries = 0 })
			r := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
			if r.Err == nil {
				t.Fatal("no error")
			}
			if got := ContextExceeded(r.Err); got != tc.want {
				t.Fatalf("ContextExceeded = %v, want %v (%v)", got, tc.want, r.Err)
			}
		})
	}
}

// OpenRouter passes a provider's length error inside a 200 stream.
func TestContextLengthErrorInsideStream(t *testing.T) {
	if k := streamErrorKind("", "This endpoint's maximum context length is 8192 tokens."); k != KindContextLength {
		t.Fatalf("kind %s", k)
	}
	if k := streamErrorKind("server_error", "overloaded"); k != KindStream {
		t.Fatalf("kind %s", k)
	}
}
