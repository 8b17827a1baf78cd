package fakeai

import (
	"net/http"
	"time"
	"unicode/utf8"
)

// Kind says what a scripted Reply does.
type Kind string

const (
	KindText      Kind = "text"       // streamed text (optionally with reasoning and tool calls)
	KindHTTPError Kind = "http_error" // a non-2xx answer with a body
	KindHTML      Kind = "html"       // an HTML page, as a misconfigured base URL gives
	KindRaw       Kind = "raw"        // an exact SSE body, byte for byte
	KindStall     Kind = "stall"      // headers, then silence
)

// Call is one tool call a scripted reply streams.
type Call struct {
	ID        string `json:"id,omitempty"` // made up ("call_N") when empty
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is what a reply reports in its usage chunk.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	CachedTokens     int64 `json:"cached_tokens,omitempty"`
}

// Reply is one scripted answer to POST /v1/chat/completions. Build it with a
// constructor (Text, ToolCalls, HTTPError, ...) and adjust it with the
// chainable methods; its JSON form is what POST /_fake/enqueue accepts.
type Reply struct {
	Kind       Kind   `json:"kind"`
	Text       string `json:"text,omitempty"`
	Reasoning  string `json:"reasoning,omitempty"` // streamed as reasoning_content deltas before the text
	Calls      []Call `json:"calls,omitempty"`
	Status     int    `json:"status,omitempty"`      // http_error, html
	Body       string `json:"body,omitempty"`        // http_error body; empty = an OpenAI-style error object
	RetryAfter string `json:"retry_after,omitempty"` // Retry-After header value for http_error
	Raw        string `json:"raw,omitempty"`         // raw SSE body
	Finish     string `json:"finish,omitempty"`      // finish_reason override
	Usage      *Usage `json:"usage,omitempty"`       // usage numbers override
	// DelayMS is the pause before each delta (raw: before each event);
	// 0 takes the server's default delay.
	DelayMS int `json:"delay_ms,omitempty"`
	// StallAt > 0 stops the stream after that many deltas (raw: events)
	// and keeps the connection open for StallMS, or until the client leaves
	// or the server closes when StallMS is 0.
	StallAt int `json:"stall_after,omitempty"`
	StallMS int `json:"stall_ms,omitempty"`
	// Dialect streams the reply as one thinking model's server does and makes the server
	// check that later requests carry its reasoning and signatures back (dialect.go).
	Dialect Dialect `json:"dialect,omitempty"`
	// Messages API only (anthropic.go): Redacted adds a redacted_thinking block; ErrorAfter > 0
	// cuts the stream after that many events with an error event of ErrorType
	// (default "overloaded_error").
	Redacted   bool   `json:"redacted,omitempty"`
	ErrorAfter int    `json:"error_after,omitempty"`
	ErrorType  string `json:"error_type,omitempty"`
	// Headers are sent with the reply, whatever its kind: a provider's rate-limit headers
	// (x-ratelimit-remaining-requests, anthropic-ratelimit-tokens-remaining, ...).
	Headers map[string]string `json:"headers,omitempty"`
}

// Text streams s in several small deltas after a role-only first chunk and
// finishes with "stop".
func Text(s string) Reply { return Reply{Kind: KindText, Text: s} }

// ToolCalls streams the calls, each call's arguments split over several
// deltas, and finishes with "tool_calls".
func ToolCalls(calls ...Call) Reply { return Reply{Kind: KindText, Calls: calls} }

// TextThenTools streams text, then the calls, and finishes with "tool_calls".
func TextThenTools(text string, calls ...Call) Reply {
	return Reply{Kind: KindText, Text: text, Calls: calls}
}

// HTTPError answers with status and body (an OpenAI-style error object
// when body is empty).
func HTTPError(status int, body string) Reply {
	return Reply{Kind: KindHTTPError, Status: status, Body: body}
}

// HTML answers with an HTML page and the given status, like a web server
// that is not an OpenAI-compatible API.
func HTML(status int) Reply { return Reply{Kind: KindHTML, Status: status} }

// Raw sends sse byte for byte as a text/event-stream body. Events (separated
// by a blank line) are flushed one at a time so delays and stalls apply.
func Raw(sse string) Reply { return Reply{Kind: KindRaw, Raw: sse} }

// Stall sends 200 headers and then nothing for d (0: until the client
// leaves or the server closes), then closes the connection without a finish.
func Stall(d time.Duration) Reply { return Reply{Kind: KindStall, StallMS: int(d / time.Millisecond)} }

// WithHeaders sends h with the reply (the rate-limit headers a provider sends).
func (r Reply) WithHeaders(h map[string]string) Reply { r.Headers = h; return r }

// setHeaders puts the reply's scripted headers on its response.
func (r Reply) setHeaders(w http.ResponseWriter) {
	for k, v := range r.Headers {
		w.Header().Set(k, v)
	}
}

// WithReasoning adds reasoning_content deltas before the text.
func (r Reply) WithReasoning(s string) Reply { r.Reasoning = s; return r }

// WithStreamError cuts a Messages API stream after n events with an error event of typ.
func (r Reply) WithStreamError(n int, typ string) Reply { r.ErrorAfter, r.ErrorType = n, typ; return r }

// WithRedactedThinking adds a redacted_thinking block to a Messages API reply.
func (r Reply) WithRedactedThinking() Reply { r.Redacted = true; return r }

// WithDialect streams the reply in d's shape and holds later requests to d's rules.
func (r Reply) WithDialect(d Dialect) Reply { r.Dialect = d; return r }

// WithUsage sets the numbers of the usage chunk.
func (r Reply) WithUsage(prompt, completion, cached int64) Reply {
	r.Usage = &Usage{PromptTokens: prompt, CompletionTokens: completion, CachedTokens: cached}
	return r
}

// WithFinish overrides finish_reason (e.g. "length", "content_filter").
func (r Reply) WithFinish(reason string) Reply { r.Finish = reason; return r }

// WithDelay sets the pause before each delta.
func (r Reply) WithDelay(d time.Duration) Reply { r.DelayMS = int(d / time.Millisecond); return r }

// WithRetryAfter sets the Retry-After header of an HTTPError reply.
func (r Reply) WithRetryAfter(v string) Reply { r.RetryAfter = v; return r }

// StallAfter stops the stream after n deltas and keeps the connection open
// (see Reply.StallAt); d = 0 stalls until the client or server gives up.
func (r Reply) StallAfter(n int, d time.Duration) Reply {
	r.StallAt = n
	r.StallMS = int(d / time.Millisecond)
	return r
}

// splitWords splits s into word-sized deltas, each space kept in front of
// the word that follows it, so the pieces join back to s.
func splitWords(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] == ' ' && s[i-1] != ' ' {
			out = append(out, s[start:i])
			start = i
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// splitRunes splits s into pieces of about n bytes without cutting a
// UTF-8 sequence, so every piece is valid in a JSON string.
func splitRunes(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
